/* frame.h - text framing for shared consoles, and extract mode (-x).
 * It writes through the function frame_begin is given (the sink's). */
#ifndef FRAME_H
#define FRAME_H

#include "lib.h"

void frame_begin(int dump, void (*put)(const char *, size_t));
void frame_put(const void *p, size_t n);
void frame_end(void);
int frame_extract(int sel, const char *out, const void *pre, size_t n, int fd,
		  void (*each)(const u8 *, size_t));

#endif
