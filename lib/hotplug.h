/* hotplug.h - CPU hotplug's uevent socket. */
#ifndef HOTPLUG_H
#define HOTPLUG_H

#include "lib.h"

/* The socket for poll (its messages: dump_hotplug), or -1 (said why). */
int hotplug_fd(void);

#endif
