/* layering fixture: an empty daemon/util/util.h */
