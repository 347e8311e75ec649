/* layering fixture: allowed includes only */

#include <stdio.h>
#include "util/util.h"
#include "private.h"
#include "../daemon/util/util.h"
