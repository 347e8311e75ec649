/* layering fixture: an empty daemon/conf.h */
