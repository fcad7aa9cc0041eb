/*
 * mb-vptr: one Wayland virtual pointer for a test run (wlroots' protocol).
 *
 * Binds the seat and zwlr_virtual_pointer_manager_v1 of the compositor
 * WAYLAND_DISPLAY names, makes one virtual pointer on it, prints "ready",
 * then reads commands one a line on stdin:
 *
 *     move X Y      the pointer to that point of an output of WIDTH x HEIGHT
 *                   (the arguments, 1280 x 1024 when none)
 *     click N       a press and release of button N (1 left, 2 middle, 3 right)
 *     wheel N       N steps of the vertical wheel (down when positive)
 *
 * and answers "ok" or "error WHY" for each. A roundtrip follows every
 * event, so the compositor has handled it before the answer.
 */
#include <stdio.h>
#include <stdlib.h>

#include "mb-wl-common.h"
#include "wlr-virtual-pointer-unstable-v1-client-protocol.h"

#define BTN_LEFT 0x110
#define BTN_RIGHT 0x111
#define BTN_MIDDLE 0x112
#define BUTTON_RELEASED 0
#define BUTTON_PRESSED 1
#define AXIS_VERTICAL 0
#define WHEEL_STEP 15 /* what a wheel click scrolls, in wl_pointer's units */

static struct wl_display *display;
static struct zwlr_virtual_pointer_v1 *pointer;
static unsigned width = 1280, height = 1024;

static void sent(void)
{
    zwlr_virtual_pointer_v1_frame(pointer);
    wl_display_roundtrip(display);
}

static bool run(char *line, char *why, size_t why_size)
{
    unsigned x, y;
    int n;
    if (sscanf(line, "move %u %u", &x, &y) == 2) {
        if (x >= width || y >= height) {
            snprintf(why, why_size, "%u,%u is outside the %ux%u output", x, y, width, height);
            return false;
        }
        zwlr_virtual_pointer_v1_motion_absolute(pointer, mb_wl_now_ms(), x, y, width, height);
        sent();
        return true;
    }
    if (sscanf(line, "click %d", &n) == 1) {
        const uint32_t button = n == 1 ? BTN_LEFT : n == 2 ? BTN_MIDDLE : n == 3 ? BTN_RIGHT : 0;
        if (button == 0) {
            snprintf(why, why_size, "click takes 1, 2 or 3");
            return false;
        }
        zwlr_virtual_pointer_v1_button(pointer, mb_wl_now_ms(), button, BUTTON_PRESSED);
        sent();
        zwlr_virtual_pointer_v1_button(pointer, mb_wl_now_ms(), button, BUTTON_RELEASED);
        sent();
        return true;
    }
    if (sscanf(line, "wheel %d", &n) == 1) {
        zwlr_virtual_pointer_v1_axis(pointer, mb_wl_now_ms(), AXIS_VERTICAL, wl_fixed_from_int(n * WHEEL_STEP));
        sent();
        return true;
    }
    snprintf(why, why_size, "unknown command (move X Y, click N, wheel N)");
    return false;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc == 3) {
        width = (unsigned)atoi(argv[1]);
        height = (unsigned)atoi(argv[2]);
    }
    struct mb_wl_globals globals;
    if (!mb_wl_connect("mb-vptr", &zwlr_virtual_pointer_manager_v1_interface, &globals))
        return 1;
    if (width == 0 || height == 0) {
        fprintf(stderr, "mb-vptr: the output size must be positive\n");
        return 1;
    }
    display = globals.display;
    pointer = zwlr_virtual_pointer_manager_v1_create_virtual_pointer(globals.manager, globals.seat);
    wl_display_roundtrip(display);
    printf("ready\n");

    if (mb_wl_serve("mb-vptr", display, run) != 0)
        return 1;
    zwlr_virtual_pointer_v1_destroy(pointer);
    wl_display_roundtrip(display);
    wl_display_disconnect(display);
    return 0;
}
