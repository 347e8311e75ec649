/* planted: daemon/ may include only the public headers of devices/, translate/ and kernel/ */
#include "devices.h"
#include "translate.h"
#include "chmu/chmu.h"
#include "translate-private.h"
#include "kernel.h"
#include "coldness/frames.h"
