/*
 * mb-wl-common: what mb-vkbd and mb-vptr share: the connection to the
 * compositor with its seat and one manager global bound, a timestamp for
 * events, and the loop that reads commands one a line on stdin.
 */
#ifndef MB_WL_COMMON_H
#define MB_WL_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <wayland-client.h>

struct mb_wl_globals {
    struct wl_display *display;
    struct wl_seat *seat; /* the compositor's first seat */
    void *manager;        /* the global of the interface asked for */
};

/* Connects to the compositor WAYLAND_DISPLAY names and binds (at version 1)
 * its first seat and the global of `manager_interface`. When there is no
 * display, seat or manager: says so on stderr as "PROGRAM: ..." and returns
 * false. */
bool mb_wl_connect(const char *program, const struct wl_interface *manager_interface, struct mb_wl_globals *globals);

/* CLOCK_MONOTONIC in milliseconds, for the time of an input event. */
uint32_t mb_wl_now_ms(void);

/* Reads commands one a line on stdin until "quit" or its end, blank lines
 * passed over, and answers each with "ok" or "error WHY" as `run` says.
 * Returns 0, or 1 when the Wayland connection failed (said on stderr). */
int mb_wl_serve(const char *program, struct wl_display *display, bool (*run)(char *line, char *why, size_t why_size));

#endif
