/* layering fixture: an empty daemon/daemon.h */
