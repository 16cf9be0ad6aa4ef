/* print.h - tracer -p: a dump as text (print.c). */
#ifndef PRINT_H
#define PRINT_H

int print_main(const char *path);	/* 0, or 1: not all of it read */

#endif
