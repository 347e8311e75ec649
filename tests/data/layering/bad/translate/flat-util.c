/* layering fixture: bad: util reached by its flat name */

#include "util.h"
