/*
 * exports-client: times the menu protocols' big reads against three servers
 * of the same menu (exports-menu.h), one blocking call at a time.
 *
 *   getlayout  com.canonical.dbusmenu.GetLayout(0, -1, []):
 *              menubusd and libdbusmenu-glib's DbusmenuServer
 *   start      org.gtk.Menus.Start([0, 1]) (every group: the whole menu),
 *              followed by an untimed End([0, 1]):
 *              menubusd and GLib's g_dbus_connection_export_menu_model
 *   ping       org.freedesktop.DBus.Peer.Ping to each server
 * and the same calls to exports-replay-server, which answers with copies
 * of the reference servers' recorded replies: the floor no server beats.
 *
 * Every reply is read completely: each value fetched with the libdbus
 * iterator API, recursively. Each sample is timed with CLOCK_MONOTONIC from
 * building the message to unref'ing the read reply. After a warm-up, the N
 * calls of each (call, server) pair are split over R rounds; in every round
 * the pairs take turns in a rotated order, so drift on a shared machine
 * lands on all alike.
 *
 * Before timing it sets menubusd up as an app and a presenter would:
 * Register, PublishContext with the menu, PresentMenu, and checks that the
 * servers' replies hold the same number of items.
 *
 * Usage: exports-client --address ADDR [-n N] [--rounds R] [--warmup W]
 *                       MENUBUS_NAME DBUSMENU_NAME GMENU_NAME REPLAY_NAME
 * Output (TSV, times in ns):
 *   info   KIND SERVER REPLY_BYTES VALUES ITEMS
 *   round  R KIND SERVER P50
 *   total  KIND SERVER COUNT P50 P90 P99 MEAN CALLS_PER_S
 * Exits 0 on success, 1 on any D-Bus error or unexpected reply, 2 on usage.
 *
 * Build: gcc -O2 -o exports-client exports-client.c $(pkg-config --cflags --libs dbus-1)
 */
#define _GNU_SOURCE
#include <dbus/dbus.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exports-menu.h"

#define TIMEOUT_MS 5000

enum kind { GETLAYOUT, START, PING };
static const char *const kind_names[] = { "getlayout", "start", "ping" };

struct series {
    enum kind kind;
    const char *server;  /* label */
    const char *dest;
    const char *path;
    uint64_t *ns;
    size_t count;
};

static DBusConnection *conn;
static volatile uint64_t sink; /* keeps the reads from being optimised away */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *what, DBusError *error)
{
    fprintf(stderr, "exports-client: %s: %s\n", what, error && dbus_error_is_set(error) ? error->message : "failed");
    exit(1);
}

/* Reads every value under `iter`; returns how many basic values there were. */
static size_t read_all(DBusMessageIter *iter)
{
    size_t values = 0;
    int type;
    while ((type = dbus_message_iter_get_arg_type(iter)) != DBUS_TYPE_INVALID) {
        if (dbus_type_is_container(type)) {
            DBusMessageIter sub;
            dbus_message_iter_recurse(iter, &sub);
            values += read_all(&sub);
        } else if (type == DBUS_TYPE_STRING || type == DBUS_TYPE_OBJECT_PATH || type == DBUS_TYPE_SIGNATURE) {
            const char *text;
            dbus_message_iter_get_basic(iter, &text);
            sink += strlen(text);
            values++;
        } else {
            DBusBasicValue value;
            dbus_message_iter_get_basic(iter, &value);
            sink += value.u64 & 0xff;
            values++;
        }
        dbus_message_iter_next(iter);
    }
    return values;
}

/* Counts the menu items in a reply: `(ia{sv}av)` nodes or `a{sv}` items. */
static size_t count_items(DBusMessageIter *iter, const char *node_signature)
{
    size_t items = 0;
    int type;
    while ((type = dbus_message_iter_get_arg_type(iter)) != DBUS_TYPE_INVALID) {
        if (dbus_type_is_container(type)) {
            char *signature = dbus_message_iter_get_signature(iter);
            if (signature && strcmp(signature, node_signature) == 0) items++;
            dbus_free(signature);
            DBusMessageIter sub;
            dbus_message_iter_recurse(iter, &sub);
            items += count_items(&sub, node_signature);
        }
        dbus_message_iter_next(iter);
    }
    return items;
}

static DBusMessage *call(const char *dest, const char *path, const char *interface, const char *member,
                         void (*append)(DBusMessageIter *))
{
    DBusMessage *message = dbus_message_new_method_call(dest, path, interface, member);
    if (!message) die("out of memory", NULL);
    if (append) {
        DBusMessageIter args;
        dbus_message_iter_init_append(message, &args);
        append(&args);
    }
    DBusError error;
    dbus_error_init(&error);
    DBusMessage *reply = dbus_connection_send_with_reply_and_block(conn, message, TIMEOUT_MS, &error);
    dbus_message_unref(message);
    if (!reply) die(member, &error);
    return reply;
}

static void append_getlayout(DBusMessageIter *args)
{
    dbus_int32_t parent = 0, depth = -1;
    DBusMessageIter names;
    dbus_message_iter_append_basic(args, DBUS_TYPE_INT32, &parent);
    dbus_message_iter_append_basic(args, DBUS_TYPE_INT32, &depth);
    dbus_message_iter_open_container(args, DBUS_TYPE_ARRAY, "s", &names);
    dbus_message_iter_close_container(args, &names);
}

static void append_groups(DBusMessageIter *args)
{
    dbus_uint32_t groups[] = { 0, 1 };
    DBusMessageIter array;
    dbus_message_iter_open_container(args, DBUS_TYPE_ARRAY, "u", &array);
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
        dbus_message_iter_append_basic(&array, DBUS_TYPE_UINT32, &groups[i]);
    dbus_message_iter_close_container(args, &array);
}

/* One call of a series; returns the reply (caller unrefs) when `keep`. */
static DBusMessage *once(const struct series *s, int keep)
{
    DBusMessage *reply;
    switch (s->kind) {
    case GETLAYOUT:
        reply = call(s->dest, s->path, "com.canonical.dbusmenu", "GetLayout", append_getlayout);
        break;
    case START:
        reply = call(s->dest, s->path, "org.gtk.Menus", "Start", append_groups);
        break;
    default:
        reply = call(s->dest, s->path, "org.freedesktop.DBus.Peer", "Ping", NULL);
        break;
    }
    DBusMessageIter iter;
    if (dbus_message_iter_init(reply, &iter)) read_all(&iter);
    if (keep) return reply;
    dbus_message_unref(reply);
    return NULL;
}

static void end_groups(const struct series *s)
{
    if (s->kind == START) dbus_message_unref(call(s->dest, s->path, "org.gtk.Menus", "End", append_groups));
}

/* --- menubusd as an app and a presenter ------------------------------------------------ */

static void add_entry(DBusMessageIter *variant_dict, const char *key, int type, const void *value)
{
    DBusMessageIter entry, variant;
    char signature[2] = { (char)type, 0 };
    dbus_message_iter_open_container(variant_dict, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
    dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &key);
    dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, signature, &variant);
    dbus_message_iter_append_basic(&variant, type, value);
    dbus_message_iter_close_container(&entry, &variant);
    dbus_message_iter_close_container(variant_dict, &entry);
}

static void add_strings(DBusMessageIter *dict, const char *key, const char *const *values, int count)
{
    DBusMessageIter entry, variant, array;
    dbus_message_iter_open_container(dict, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
    dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &key);
    dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, "as", &variant);
    dbus_message_iter_open_container(&variant, DBUS_TYPE_ARRAY, "s", &array);
    for (int i = 0; i < count; i++) dbus_message_iter_append_basic(&array, DBUS_TYPE_STRING, &values[i]);
    dbus_message_iter_close_container(&variant, &array);
    dbus_message_iter_close_container(&entry, &variant);
    dbus_message_iter_close_container(dict, &entry);
}

/* One (ssa{sv}) element of a MenuBus menu. */
static void add_element(DBusMessageIter *items, const char *id, const char *parent, const struct menu_entry *e,
                        int section)
{
    DBusMessageIter element, properties;
    dbus_message_iter_open_container(items, DBUS_TYPE_STRUCT, NULL, &element);
    dbus_message_iter_append_basic(&element, DBUS_TYPE_STRING, &id);
    dbus_message_iter_append_basic(&element, DBUS_TYPE_STRING, &parent);
    dbus_message_iter_open_container(&element, DBUS_TYPE_ARRAY, "{sv}", &properties);
    if (section || (e && e->is_submenu)) {
        const char *menu = "menu";
        add_entry(&properties, "type", DBUS_TYPE_STRING, &menu);
    }
    if (section) {
        const char *inline_option[] = { "inline" };
        add_strings(&properties, "options", inline_option, 1);
    }
    if (e) {
        const char *label = e->label;
        add_entry(&properties, "title", DBUS_TYPE_STRING, &label);
        if (e->icon) add_entry(&properties, "icon", DBUS_TYPE_STRING, &e->icon);
        if (e->accel[0]) {
            const char *accel = e->accel;
            add_entry(&properties, "shortcut", DBUS_TYPE_STRING, &accel);
        }
        if (e->checked) {
            const char *on = "on";
            add_entry(&properties, "state", DBUS_TYPE_STRING, &on);
        }
    }
    dbus_message_iter_close_container(&element, &properties);
    dbus_message_iter_close_container(items, &element);
}

static void append_register(DBusMessageIter *args)
{
    const char *app = "org.menubus.Bench";
    const char *path = "/org/menubus/Bench";
    DBusMessageIter options;
    dbus_message_iter_append_basic(args, DBUS_TYPE_STRING, &app);
    dbus_message_iter_append_basic(args, DBUS_TYPE_OBJECT_PATH, &path);
    dbus_message_iter_open_container(args, DBUS_TYPE_ARRAY, "{sv}", &options);
    dbus_message_iter_close_container(args, &options);
}

static void append_publish(DBusMessageIter *args)
{
    const char *context = "bench";
    const char *kind = "item";
    DBusMessageIter info, items;
    dbus_message_iter_append_basic(args, DBUS_TYPE_STRING, &context);
    dbus_message_iter_open_container(args, DBUS_TYPE_ARRAY, "{sv}", &info);
    add_entry(&info, "kind", DBUS_TYPE_STRING, &kind);
    add_strings(&info, "supported-commands", NULL, 0);  /* no system items: only the bench menu */
    dbus_message_iter_close_container(args, &info);
    dbus_message_iter_open_container(args, DBUS_TYPE_ARRAY, "(ssa{sv})", &items);
    char section_id[16];
    for (int index = 0; index < MENU_ENTRIES; index++) {
        if (index % MENU_PER_SECTION == 0) {
            snprintf(section_id, sizeof section_id, "s%d", index / MENU_PER_SECTION);
            add_element(&items, section_id, "", NULL, 1);
        }
        struct menu_entry e = menu_entry(index);
        add_element(&items, e.id, section_id, &e, 0);
        if (e.is_submenu) {
            for (int sub = 0; sub < MENU_SUBMENU_ITEMS; sub++) {
                struct menu_entry m = menu_submenu_entry(sub);
                add_element(&items, m.id, e.id, &m, 0);
            }
        }
    }
    dbus_message_iter_close_container(args, &items);
}

static void append_present(DBusMessageIter *args)
{
    const char *owner = "", *context = "bench", *kind = "context";
    DBusMessageIter options;
    dbus_message_iter_append_basic(args, DBUS_TYPE_STRING, &owner);
    dbus_message_iter_append_basic(args, DBUS_TYPE_STRING, &context);
    dbus_message_iter_append_basic(args, DBUS_TYPE_STRING, &kind);
    dbus_message_iter_open_container(args, DBUS_TYPE_ARRAY, "{sv}", &options);
    dbus_message_iter_close_container(args, &options);
}

static char *present_menubus(const char *menubus)
{
    dbus_message_unref(call(menubus, "/org/menubus/MenuBus1", "org.menubus.MenuBus1", "Register", append_register));
    dbus_message_unref(call(menubus, "/org/menubus/MenuBus1", "org.menubus.MenuBus1", "PublishContext", append_publish));
    DBusMessage *reply = call(menubus, "/org/menubus/MenuBus1", "org.menubus.MenuBus1", "PresentMenu", append_present);
    const char *path = NULL;
    DBusError error;
    dbus_error_init(&error);
    if (!dbus_message_get_args(reply, &error, DBUS_TYPE_OBJECT_PATH, &path, DBUS_TYPE_INVALID)) die("PresentMenu reply", &error);
    char *copy = strdup(path);
    dbus_message_unref(reply);
    /* Held for the whole run, as a consumer showing the menu holds it: the
     * End of the last subscription ends a presentation. */
    dbus_message_unref(call(menubus, copy, "org.gtk.Menus", "Start", append_groups));
    return copy;
}

/* --- statistics -------------------------------------------------------------------------- */

static int compare(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t percentile(uint64_t *sorted, size_t count, double p)
{
    size_t index = (size_t)(p * (double)(count - 1) + 0.5);
    return sorted[index < count ? index : count - 1];
}

int main(int argc, char **argv)
{
    const char *address = NULL;
    size_t calls = 2000, rounds = 20, warmup = 200;
    const char *names[4];
    int named = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--address") && i + 1 < argc) address = argv[++i];
        else if (!strcmp(argv[i], "-n") && i + 1 < argc) calls = strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--warmup") && i + 1 < argc) warmup = strtoul(argv[++i], NULL, 10);
        else if (argv[i][0] != '-' && named < 4) names[named++] = argv[i];
        else {
            fprintf(stderr, "usage: exports-client --address ADDR [-n N] [--rounds R] [--warmup W] MENUBUS DBUSMENU GMENU REPLAY\n");
            return 2;
        }
    }
    if (!address || named != 4 || rounds == 0 || calls < rounds) {
        fprintf(stderr, "usage: exports-client --address ADDR [-n N] [--rounds R] [--warmup W] MENUBUS DBUSMENU GMENU REPLAY\n");
        return 2;
    }
    DBusError error;
    dbus_error_init(&error);
    conn = dbus_connection_open_private(address, &error);
    if (!conn || !dbus_bus_register(conn, &error)) die("connect", &error);

    char *presented = present_menubus(names[0]);
    struct series series[] = {
        { GETLAYOUT, "menubusd", names[0], presented, NULL, 0 },
        { GETLAYOUT, "libdbusmenu-glib", names[1], "/menu", NULL, 0 },
        { START, "menubusd", names[0], presented, NULL, 0 },
        { START, "GLib", names[2], "/menu", NULL, 0 },
        { PING, "menubusd", names[0], presented, NULL, 0 },
        { PING, "libdbusmenu-glib", names[1], "/menu", NULL, 0 },
        { PING, "GLib", names[2], "/menu", NULL, 0 },
        { GETLAYOUT, "floor", names[3], "/menu", NULL, 0 },
        { START, "floor", names[3], "/menu", NULL, 0 },
        { PING, "floor", names[3], "/menu", NULL, 0 },
    };
    const size_t count = sizeof series / sizeof series[0];

    /* What each server answers, and a check that the menus match. */
    size_t items[sizeof series / sizeof series[0]] = { 0 };
    for (size_t s = 0; s < count; s++) {
        DBusMessage *reply = once(&series[s], 1);
        char *bytes = NULL;
        int length = 0;
        if (!dbus_message_marshal(reply, &bytes, &length)) die("marshal", NULL);
        free(bytes);
        DBusMessageIter iter;
        size_t values = dbus_message_iter_init(reply, &iter) ? read_all(&iter) : 0;
        if (dbus_message_iter_init(reply, &iter))
            items[s] = count_items(&iter, series[s].kind == GETLAYOUT ? "(ia{sv}av)" : "a{sv}");
        printf("info\t%s\t%s\t%d\t%zu\t%zu\n", kind_names[series[s].kind], series[s].server, length, values, items[s]);
        dbus_message_unref(reply);
        end_groups(&series[s]);
    }
    if (items[0] != items[1] || items[2] != items[3] || items[7] != items[1] || items[8] != items[3]) {
        fprintf(stderr, "exports-client: the servers' menus differ: GetLayout %zu vs %zu nodes, Start %zu vs %zu items\n",
                items[0], items[1], items[2], items[3]);
        return 1;
    }

    for (size_t s = 0; s < count; s++) {
        for (size_t i = 0; i < warmup; i++) {
            once(&series[s], 0);
            end_groups(&series[s]);
        }
        series[s].ns = calloc(calls, sizeof(uint64_t));
        if (!series[s].ns) die("out of memory", NULL);
    }
    size_t per_round = calls / rounds;
    uint64_t *round_samples = calloc(per_round, sizeof(uint64_t));
    for (size_t r = 0; r < rounds; r++) {
        for (size_t turn = 0; turn < count; turn++) {
            struct series *s = &series[(turn + r) % count];
            for (size_t i = 0; i < per_round; i++) {
                uint64_t start = now_ns();
                once(s, 0);
                uint64_t elapsed = now_ns() - start;
                end_groups(s);
                s->ns[s->count++] = elapsed;
                round_samples[i] = elapsed;
            }
            qsort(round_samples, per_round, sizeof(uint64_t), compare);
            printf("round\t%zu\t%s\t%s\t%llu\n", r + 1, kind_names[s->kind], s->server,
                   (unsigned long long)percentile(round_samples, per_round, 0.5));
        }
    }
    for (size_t s = 0; s < count; s++) {
        struct series *x = &series[s];
        uint64_t sum = 0;
        for (size_t i = 0; i < x->count; i++) sum += x->ns[i];
        qsort(x->ns, x->count, sizeof(uint64_t), compare);
        double mean = (double)sum / (double)x->count;
        printf("total\t%s\t%s\t%zu\t%llu\t%llu\t%llu\t%.0f\t%.0f\n", kind_names[x->kind], x->server, x->count,
               (unsigned long long)percentile(x->ns, x->count, 0.5), (unsigned long long)percentile(x->ns, x->count, 0.9),
               (unsigned long long)percentile(x->ns, x->count, 0.99), mean, 1e9 / mean);
    }
    return 0;
}
