/*
 * exports-replay-server: the floor of bench/exports/exports.sh. It records, once,
 * the reference servers' own replies (GetLayout(0, -1, []) from the
 * libdbusmenu-glib server, Start([0, 1]) from the GLib server) and answers
 * every later call with a copy of the recorded reply: no work but libdbus
 * copying and sending bytes. What is left of a round trip is the bus
 * daemon, the client and the kernel; no server can go below it.
 *
 * Build: gcc -O2 -o exports-replay-server exports-replay-server.c $(pkg-config --cflags --libs dbus-1)
 * Usage: exports-replay-server ADDRESS NAME DBUSMENU_NAME GMENU_NAME
 */
#include <dbus/dbus.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static DBusMessage *layout, *start;

static void die(const char *what, DBusError *error)
{
    fprintf(stderr, "exports-replay-server: %s: %s\n", what, error && dbus_error_is_set(error) ? error->message : "failed");
    exit(1);
}

static DBusMessage *record(DBusConnection *conn, const char *dest, const char *interface, const char *member, int groups)
{
    DBusMessage *call = dbus_message_new_method_call(dest, "/menu", interface, member);
    DBusMessageIter args, array;
    dbus_message_iter_init_append(call, &args);
    if (groups) {
        dbus_uint32_t ids[] = { 0, 1 };
        dbus_message_iter_open_container(&args, DBUS_TYPE_ARRAY, "u", &array);
        for (int i = 0; i < 2; i++) dbus_message_iter_append_basic(&array, DBUS_TYPE_UINT32, &ids[i]);
        dbus_message_iter_close_container(&args, &array);
    } else {
        dbus_int32_t parent = 0, depth = -1;
        dbus_message_iter_append_basic(&args, DBUS_TYPE_INT32, &parent);
        dbus_message_iter_append_basic(&args, DBUS_TYPE_INT32, &depth);
        dbus_message_iter_open_container(&args, DBUS_TYPE_ARRAY, "s", &array);
        dbus_message_iter_close_container(&args, &array);
    }
    DBusError error;
    dbus_error_init(&error);
    DBusMessage *reply = dbus_connection_send_with_reply_and_block(conn, call, 5000, &error);
    dbus_message_unref(call);
    if (!reply) die(member, &error);
    return reply;
}

static void answer(DBusConnection *conn, DBusMessage *call, DBusMessage *recorded)
{
    DBusMessage *reply = recorded ? dbus_message_copy(recorded) : dbus_message_new_method_return(call);
    if (!reply) return;
    dbus_message_set_reply_serial(reply, dbus_message_get_serial(call));
    dbus_message_set_destination(reply, dbus_message_get_sender(call));
    dbus_connection_send(conn, reply, NULL);
    dbus_message_unref(reply);
}

static DBusHandlerResult filter(DBusConnection *conn, DBusMessage *message, void *data)
{
    (void)data;
    if (dbus_message_is_method_call(message, "com.canonical.dbusmenu", "GetLayout")) answer(conn, message, layout);
    else if (dbus_message_is_method_call(message, "org.gtk.Menus", "Start")) answer(conn, message, start);
    else if (dbus_message_is_method_call(message, "org.gtk.Menus", "End")) answer(conn, message, NULL);
    else return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
    return DBUS_HANDLER_RESULT_HANDLED;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: exports-replay-server ADDRESS NAME DBUSMENU_NAME GMENU_NAME\n");
        return 2;
    }
    DBusError error;
    dbus_error_init(&error);
    DBusConnection *conn = dbus_connection_open_private(argv[1], &error);
    if (!conn || !dbus_bus_register(conn, &error)) die("connect", &error);
    layout = record(conn, argv[3], "com.canonical.dbusmenu", "GetLayout", 0);
    start = record(conn, argv[4], "org.gtk.Menus", "Start", 1);
    dbus_message_unref(record(conn, argv[4], "org.gtk.Menus", "End", 1));
    dbus_connection_add_filter(conn, filter, NULL, NULL);
    if (dbus_bus_request_name(conn, argv[2], DBUS_NAME_FLAG_DO_NOT_QUEUE, &error) != DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER)
        die("request name", &error);
    while (dbus_connection_read_write_dispatch(conn, -1)) {}
    return 0;
}
