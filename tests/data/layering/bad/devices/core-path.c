/* layering fixture: bad: daemon/core through its subfolder name */

#include "core/core.h"
