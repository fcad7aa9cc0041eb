/*
 * The benchmark menu of bench/exports/exports.sh, shared by its three programs so
 * every server serves the same content: 50 entries in 10 sections of 5;
 * the last entry is a submenu "More" of 4 items. Every third item has an
 * icon, every seventh a shortcut, every tenth (from the fifth) is checked.
 */
#ifndef MENUBUS_EXPORTS_MENU_H
#define MENUBUS_EXPORTS_MENU_H

#include <stdio.h>

#define MENU_SECTIONS 10
#define MENU_PER_SECTION 5
#define MENU_ENTRIES (MENU_SECTIONS * MENU_PER_SECTION)
#define MENU_SUBMENU_ITEMS 4

struct menu_entry {
    char id[16];
    char label[32];
    const char *icon;   /* NULL: none */
    char accel[24];     /* GTK syntax; "" for none */
    char key[2];        /* the accel's key, for dbusmenu's shortcut */
    int checked;
    int is_submenu;
};

/* Entry `index` (0..MENU_ENTRIES-1) of the top level. */
static inline struct menu_entry menu_entry(int index)
{
    struct menu_entry e = { .icon = NULL };
    e.is_submenu = index == MENU_ENTRIES - 1;
    snprintf(e.id, sizeof e.id, e.is_submenu ? "more" : "i%d", index);
    snprintf(e.label, sizeof e.label, e.is_submenu ? "More" : "Item %d", index + 1);
    if (!e.is_submenu && index % 3 == 0) e.icon = "edit-copy";
    if (!e.is_submenu && index % 7 == 0) {
        e.key[0] = (char)('a' + index % 26);
        snprintf(e.accel, sizeof e.accel, "<Control>%s", e.key);
    }
    e.checked = !e.is_submenu && index % 10 == 4;
    return e;
}

/* Item `index` (0..MENU_SUBMENU_ITEMS-1) of the submenu. */
static inline struct menu_entry menu_submenu_entry(int index)
{
    struct menu_entry e = { .icon = NULL };
    snprintf(e.id, sizeof e.id, "m%d", index);
    snprintf(e.label, sizeof e.label, "More %d", index + 1);
    return e;
}

#endif
