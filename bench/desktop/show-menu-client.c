/*
 * show-menu-client.c: the least a shortcut's command can do for
 * `menubus-cli show-menu`, for bench/desktop/show-menu.sh to set beside
 * it: connect to the session bus with libdbus, call menubusd's
 * ShowMenuForFocus({}) (no NameHasOwner first, no auto-start), wait for
 * the answer and exit 0, or 1 with the error on stderr. A C program on
 * libdbus, as dbus-send is: what is left of the CLI's time when the
 * process start-up of a Swift program is taken away.
 *
 *   show-menu-client
 */
#include "../lib/bench-bus.h"

int main(void)
{
    DBusError err;
    dbus_error_init(&err);
    DBusConnection *conn = bench_connect(NULL, &err);
    if (!conn) {
        fprintf(stderr, "show-menu-client: %s\n", err.message);
        return 1;
    }
    DBusMessage *call = dbus_message_new_method_call("org.menubus.MenuBus1", "/org/menubus/MenuBus1",
                                                     "org.menubus.MenuBus1", "ShowMenuForFocus");
    DBusMessageIter args, options;
    dbus_message_iter_init_append(call, &args);
    dbus_message_iter_open_container(&args, DBUS_TYPE_ARRAY, "{sv}", &options);
    dbus_message_iter_close_container(&args, &options);
    dbus_message_set_auto_start(call, FALSE);
    DBusMessage *reply = dbus_connection_send_with_reply_and_block(conn, call, 10000, &err);
    dbus_message_unref(call);
    int status = 0;
    if (!reply) {
        fprintf(stderr, "show-menu-client: %s: %s\n", err.name, err.message);
        dbus_error_free(&err);
        status = 1;
    } else {
        dbus_message_unref(reply);
    }
    dbus_connection_close(conn);
    dbus_connection_unref(conn);
    return status;
}
