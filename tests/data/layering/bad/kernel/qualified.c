/* layering fixture: bad: daemon/ spelled out */

#  include <daemon/conf.h>
