/* layering fixture: an empty daemon/core/core.h */
