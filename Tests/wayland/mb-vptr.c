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
#include <string.h>
#include <time.h>

#include <wayland-client.h>

#include "wlr-virtual-pointer-unstable-v1-client-protocol.h"

#define BTN_LEFT 0x110
#define BTN_RIGHT 0x111
#define BTN_MIDDLE 0x112
#define BUTTON_RELEASED 0
#define BUTTON_PRESSED 1
#define AXIS_VERTICAL 0
#define WHEEL_STEP 15 /* what a wheel click scrolls, in wl_pointer's units */

static struct wl_display *display;
static struct wl_seat *seat;
static struct zwlr_virtual_pointer_manager_v1 *manager;
static struct zwlr_virtual_pointer_v1 *pointer;
static unsigned width = 1280, height = 1024;

static void on_global(void *data, struct wl_registry *registry, uint32_t name, const char *interface, uint32_t version)
{
    (void)data;
    (void)version;
    if (strcmp(interface, wl_seat_interface.name) == 0 && seat == NULL)
        seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
    else if (strcmp(interface, zwlr_virtual_pointer_manager_v1_interface.name) == 0)
        manager = wl_registry_bind(registry, name, &zwlr_virtual_pointer_manager_v1_interface, 1);
}

static void on_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
    (void)data;
    (void)registry;
    (void)name;
}

static const struct wl_registry_listener registry_listener = { on_global, on_global_remove };

static uint32_t now_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint32_t)(now.tv_sec * 1000 + now.tv_nsec / 1000000);
}

static void sent(void)
{
    zwlr_virtual_pointer_v1_frame(pointer);
    wl_display_roundtrip(display);
}

static int run(const char *line, char *why, size_t why_size)
{
    unsigned x, y;
    int n;
    if (sscanf(line, "move %u %u", &x, &y) == 2) {
        if (x >= width || y >= height) {
            snprintf(why, why_size, "%u,%u is outside the %ux%u output", x, y, width, height);
            return 0;
        }
        zwlr_virtual_pointer_v1_motion_absolute(pointer, now_ms(), x, y, width, height);
        sent();
        return 1;
    }
    if (sscanf(line, "click %d", &n) == 1) {
        const uint32_t button = n == 1 ? BTN_LEFT : n == 2 ? BTN_MIDDLE : n == 3 ? BTN_RIGHT : 0;
        if (button == 0) {
            snprintf(why, why_size, "click takes 1, 2 or 3");
            return 0;
        }
        zwlr_virtual_pointer_v1_button(pointer, now_ms(), button, BUTTON_PRESSED);
        sent();
        zwlr_virtual_pointer_v1_button(pointer, now_ms(), button, BUTTON_RELEASED);
        sent();
        return 1;
    }
    if (sscanf(line, "wheel %d", &n) == 1) {
        zwlr_virtual_pointer_v1_axis(pointer, now_ms(), AXIS_VERTICAL, wl_fixed_from_int(n * WHEEL_STEP));
        sent();
        return 1;
    }
    snprintf(why, why_size, "unknown command (move X Y, click N, wheel N)");
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc == 3) {
        width = (unsigned)atoi(argv[1]);
        height = (unsigned)atoi(argv[2]);
    }
    display = wl_display_connect(NULL);
    if (display == NULL) {
        fprintf(stderr, "mb-vptr: cannot connect to the Wayland display %s\n", getenv("WAYLAND_DISPLAY") ?: "(unset)");
        return 1;
    }
    struct wl_registry *registry = wl_display_get_registry(display);
    wl_registry_add_listener(registry, &registry_listener, NULL);
    wl_display_roundtrip(display);
    if (seat == NULL || manager == NULL || width == 0 || height == 0) {
        fprintf(stderr, "mb-vptr: %s\n", seat == NULL ? "the compositor offers no seat"
                                         : manager == NULL ? "the compositor offers no zwlr_virtual_pointer_manager_v1"
                                                           : "the output size must be positive");
        return 1;
    }
    pointer = zwlr_virtual_pointer_manager_v1_create_virtual_pointer(manager, seat);
    wl_display_roundtrip(display);
    printf("ready\n");

    char *line = NULL;
    size_t capacity = 0;
    ssize_t length;
    while ((length = getline(&line, &capacity, stdin)) >= 0) {
        while (length > 0 && (line[length - 1] == '\n' || line[length - 1] == '\r'))
            line[--length] = '\0';
        if (length == 0)
            continue;
        if (strcmp(line, "quit") == 0)
            break;
        char why[256] = "";
        if (run(line, why, sizeof why))
            printf("ok\n");
        else
            printf("error %s\n", why);
        if (wl_display_get_error(display) != 0) {
            fprintf(stderr, "mb-vptr: the Wayland connection failed: %s\n", strerror(wl_display_get_error(display)));
            return 1;
        }
    }
    free(line);
    zwlr_virtual_pointer_v1_destroy(pointer);
    wl_display_roundtrip(display);
    wl_display_disconnect(display);
    return 0;
}
