/*
 * changes-floor: a service that does no work, the floor under any service
 * an app tells its menu changes to (bench/changes/changes.py's "floor" side).
 *
 * A libdbus program with a plain dbus_connection_read_write_dispatch loop,
 * owning NAME. To an UpdateItems or UpdateSelection call on
 * org.menubus.MenuBus1 it answers at once: it sends one
 * signal built at start (a copy, for a fresh serial) and then the empty
 * reply. It reads nothing of the call but its first argument, the context
 * id: one ending in "-gmenu" gets org.gtk.Menus.Changed with a one-item
 * change, any other com.canonical.dbusmenu.ItemsPropertiesUpdated with one
 * label, each the size of menubusd's for a rename. No consumer follows it;
 * the bench times the signal's arrival, so the figure is what the bus and
 * the app's call cost a service before it has done anything.
 *
 * Usage: changes-floor [--address ADDRESS] NAME
 * Exits 0 when the bus goes away, 1 on setup errors, 2 on a usage error,
 * 3 if NAME cannot be owned.
 *
 * Build: gcc -O2 -o changes-floor changes-floor.c $(pkg-config --cflags --libs dbus-1)
 */
#include <dbus/dbus.h>
#include <stdio.h>
#include <string.h>

#include "../lib/bench-bus.h"

#define PATH "/org/menubus/MenuBus1"
#define IFACE "org.menubus.MenuBus1"
#define SIGNAL_PATH "/org/menubus/Bench/Floor/1"

static DBusMessage *gmenu_signal, *dbusmenu_signal;

/* Appends { key: <s value> } to an a{sv} iterator. */
static int append_string_entry(DBusMessageIter *dict, const char *key, const char *value)
{
    DBusMessageIter entry, variant;
    return dbus_message_iter_open_container(dict, DBUS_TYPE_DICT_ENTRY, NULL, &entry) &&
           dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &key) &&
           dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, "s", &variant) &&
           dbus_message_iter_append_basic(&variant, DBUS_TYPE_STRING, &value) &&
           dbus_message_iter_close_container(&entry, &variant) &&
           dbus_message_iter_close_container(dict, &entry);
}

/* org.gtk.Menus.Changed a(uuuuaa{sv}): item 5 of group 0, menu 0 replaced. */
static DBusMessage *build_gmenu_signal(void)
{
    DBusMessage *signal = dbus_message_new_signal(SIGNAL_PATH, "org.gtk.Menus", "Changed");
    DBusMessageIter iter, changes, change, items, item;
    dbus_uint32_t group = 0, menu = 0, position = 5, removed = 1;
    if (!signal)
        return NULL;
    dbus_message_iter_init_append(signal, &iter);
    if (!dbus_message_iter_open_container(&iter, DBUS_TYPE_ARRAY, "(uuuuaa{sv})", &changes) ||
        !dbus_message_iter_open_container(&changes, DBUS_TYPE_STRUCT, NULL, &change) ||
        !dbus_message_iter_append_basic(&change, DBUS_TYPE_UINT32, &group) ||
        !dbus_message_iter_append_basic(&change, DBUS_TYPE_UINT32, &menu) ||
        !dbus_message_iter_append_basic(&change, DBUS_TYPE_UINT32, &position) ||
        !dbus_message_iter_append_basic(&change, DBUS_TYPE_UINT32, &removed) ||
        !dbus_message_iter_open_container(&change, DBUS_TYPE_ARRAY, "a{sv}", &items) ||
        !dbus_message_iter_open_container(&items, DBUS_TYPE_ARRAY, "{sv}", &item) ||
        !append_string_entry(&item, "label", "Renamed 0f") ||
        !append_string_entry(&item, "action", "menubus.5") ||
        !dbus_message_iter_close_container(&items, &item) ||
        !dbus_message_iter_close_container(&change, &items) ||
        !dbus_message_iter_close_container(&changes, &change) ||
        !dbus_message_iter_close_container(&iter, &changes)) {
        dbus_message_unref(signal);
        return NULL;
    }
    return signal;
}

/* com.canonical.dbusmenu.ItemsPropertiesUpdated a(ia{sv}) a(ias): one label. */
static DBusMessage *build_dbusmenu_signal(void)
{
    DBusMessage *signal = dbus_message_new_signal(SIGNAL_PATH, "com.canonical.dbusmenu",
                                                  "ItemsPropertiesUpdated");
    DBusMessageIter iter, updated, entry, properties, removed;
    dbus_int32_t id = 6;
    if (!signal)
        return NULL;
    dbus_message_iter_init_append(signal, &iter);
    if (!dbus_message_iter_open_container(&iter, DBUS_TYPE_ARRAY, "(ia{sv})", &updated) ||
        !dbus_message_iter_open_container(&updated, DBUS_TYPE_STRUCT, NULL, &entry) ||
        !dbus_message_iter_append_basic(&entry, DBUS_TYPE_INT32, &id) ||
        !dbus_message_iter_open_container(&entry, DBUS_TYPE_ARRAY, "{sv}", &properties) ||
        !append_string_entry(&properties, "label", "Renamed 0f") ||
        !dbus_message_iter_close_container(&entry, &properties) ||
        !dbus_message_iter_close_container(&updated, &entry) ||
        !dbus_message_iter_close_container(&iter, &updated) ||
        !dbus_message_iter_open_container(&iter, DBUS_TYPE_ARRAY, "(ias)", &removed) ||
        !dbus_message_iter_close_container(&iter, &removed)) {
        dbus_message_unref(signal);
        return NULL;
    }
    return signal;
}

static int ends_with(const char *text, const char *suffix)
{
    size_t length = strlen(text), tail = strlen(suffix);
    return length >= tail && strcmp(text + length - tail, suffix) == 0;
}

static DBusHandlerResult handle(DBusConnection *conn, DBusMessage *msg, void *data)
{
    (void)data;
    if (dbus_message_get_type(msg) != DBUS_MESSAGE_TYPE_METHOD_CALL)
        return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
    DBusMessage *reply;
    if (dbus_message_is_method_call(msg, IFACE, "UpdateItems") ||
        dbus_message_is_method_call(msg, IFACE, "UpdateSelection")) {
        DBusMessageIter args;
        const char *context = "";
        if (dbus_message_iter_init(msg, &args) &&
            dbus_message_iter_get_arg_type(&args) == DBUS_TYPE_STRING)
            dbus_message_iter_get_basic(&args, &context);
        DBusMessage *signal = dbus_message_copy(ends_with(context, "-gmenu") ? gmenu_signal
                                                                             : dbusmenu_signal);
        if (!signal)
            return DBUS_HANDLER_RESULT_NEED_MEMORY;
        dbus_connection_send(conn, signal, NULL);
        dbus_message_unref(signal);
        reply = dbus_message_new_method_return(msg);
    } else {
        reply = dbus_message_new_error(msg, DBUS_ERROR_UNKNOWN_METHOD, "No such method");
    }
    return bench_reply(conn, msg, reply);
}

int main(int argc, char **argv)
{
    const char *address, *name;
    int usage = bench_server_args(argc, argv, &address, &name);
    if (usage)
        return usage;
    gmenu_signal = build_gmenu_signal();
    dbusmenu_signal = build_dbusmenu_signal();
    if (!gmenu_signal || !dbusmenu_signal) {
        fprintf(stderr, "changes-floor: out of memory\n");
        return 1;
    }
    int status = bench_serve("changes-floor", address, name, PATH, handle);
    dbus_message_unref(gmenu_signal);
    dbus_message_unref(dbusmenu_signal);
    return status;
}
