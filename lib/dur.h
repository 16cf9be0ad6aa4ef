/* dur.h - tripwires on durations the kernel computes (DURATION):
 * trip=wakeup>5ms and the other presets. */
#ifndef DUR_H
#define DUR_H

#include "lib.h"

/* A duration tripwire (trips[trip], typed as what): spec "wakeup" or
 * "wakeup/FILTER/", us its threshold. 0, or what is wrong (a config
 * error). */
const char *dur_add(int trip, const char *what, char *spec, long us);
/* After the config, the i-th from 0: its synthetic event made (dies,
 * exit 2, where the kernel has none), and returned as the event to
 * record ("synthetic:NAME/lat >= US/"); 0 after the last. */
const char *dur_make(int i, const char *tracefs);
/* Armed: the triggers in tracer's own instance, and the fd whose
 * POLLIN says one crossed (-1: no duration tripwire). Dies. */
int dur_arm(void);
/* A crossing: 1, its tripwire in *trip and its words ("wakeup 7.3 ms:
 * pid 812 (audiod) on cpu 1") in what; 0 when none is left. */
int dur_read(int *trip, char *what, size_t n);
void dur_end(void);	/* every way out: triggers, instance, events */
void dur_forget(void);	/* none added: a fuzz harness's next config */

#endif
