/* The Wayland connection and command loop of mb-vkbd and mb-vptr (mb-wl-common.h). */
#define _GNU_SOURCE
#include "mb-wl-common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct wanted {
    const struct wl_interface *manager_interface;
    struct mb_wl_globals *globals;
};

static void on_global(void *data, struct wl_registry *registry, uint32_t name, const char *interface, uint32_t version)
{
    struct wanted *wanted = data;
    (void)version;
    if (strcmp(interface, wl_seat_interface.name) == 0 && wanted->globals->seat == NULL)
        wanted->globals->seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
    else if (strcmp(interface, wanted->manager_interface->name) == 0)
        wanted->globals->manager = wl_registry_bind(registry, name, wanted->manager_interface, 1);
}

static void on_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
    (void)data;
    (void)registry;
    (void)name;
}

static const struct wl_registry_listener registry_listener = {on_global, on_global_remove};

bool mb_wl_connect(const char *program, const struct wl_interface *manager_interface, struct mb_wl_globals *globals)
{
    *globals = (struct mb_wl_globals){0};
    globals->display = wl_display_connect(NULL);
    if (globals->display == NULL) {
        fprintf(stderr, "%s: cannot connect to the Wayland display %s\n", program, getenv("WAYLAND_DISPLAY") ?: "(unset)");
        return false;
    }
    struct wanted wanted = {manager_interface, globals};
    struct wl_registry *registry = wl_display_get_registry(globals->display);
    wl_registry_add_listener(registry, &registry_listener, &wanted);
    wl_display_roundtrip(globals->display);
    if (globals->seat == NULL || globals->manager == NULL) {
        fprintf(stderr, "%s: the compositor offers no %s\n", program,
                globals->seat == NULL ? "seat" : manager_interface->name);
        return false;
    }
    return true;
}

uint32_t mb_wl_now_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint32_t)(now.tv_sec * 1000 + now.tv_nsec / 1000000);
}

int mb_wl_serve(const char *program, struct wl_display *display, bool (*run)(char *line, char *why, size_t why_size))
{
    char *line = NULL;
    size_t capacity = 0;
    ssize_t length;
    int status = 0;
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
            fprintf(stderr, "%s: the Wayland connection failed: %s\n", program, strerror(wl_display_get_error(display)));
            status = 1;
            break;
        }
    }
    free(line);
    return status;
}
