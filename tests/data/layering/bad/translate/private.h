/* layering fixture: an empty translate/private.h */
