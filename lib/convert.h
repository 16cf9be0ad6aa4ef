/* convert.h - tracer -c: a stream or a capture as file-mode perf.data
 * files, one per dump (convert.c). */
#ifndef CONVERT_H
#define CONVERT_H

int conv_main(const char *path, const char *out, int sel);	/* 0, or 1: not all of it; sel: -n */

#endif
