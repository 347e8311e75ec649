/* layering fixture: bad: a daemon/ header by its flat name */

#include "daemon.h"
