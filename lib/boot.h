/* boot.h - tracer -b: the boot before, read from a persistent ftrace
 * instance (boot.c, on ftrace.c's walk). */
#ifndef BOOT_H
#define BOOT_H

char *ft_boot(void);		/* the boot before read; its config */
void ft_comms(void);		/* its tasks named, into the dump */

#endif
