/* layering fixture: bad: a relative path into daemon/ */

#include "../daemon/conf.h"
