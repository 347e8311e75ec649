/* planted: daemon/ may include only the public headers of devices/ and translate/ */
#include "devices.h"
#include "translate.h"
#include "chmu/chmu.h"
#include "translate-private.h"
