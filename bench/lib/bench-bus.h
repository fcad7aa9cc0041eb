/*
 * bench-bus.h: what the C libdbus programs of bench/ share (header only;
 * each program is one gcc command, so this is included, not linked).
 *
 *   bench_connect      a private connection to ADDRESS (registered with
 *                      the bus there) or to the session bus;
 *   bench_server_args  "[--address ADDRESS] NAME" of a server;
 *   bench_reply        sends a handler's reply (NULL: out of memory);
 *   bench_serve        serves one object path under NAME until the bus
 *                      goes away: 0, or 1 on setup errors, 3 if NAME
 *                      cannot be owned.
 */
#ifndef BENCH_BUS_H
#define BENCH_BUS_H

#include <dbus/dbus.h>
#include <stdio.h>
#include <string.h>

/* NULL (with `err` set) when it cannot connect; exiting on a disconnect
 * is the caller's (the loops end when the bus goes away). */
static inline DBusConnection *bench_connect(const char *address, DBusError *err)
{
    DBusConnection *conn;
    if (address) {
        conn = dbus_connection_open_private(address, err);
        if (conn && !dbus_bus_register(conn, err)) {
            dbus_connection_close(conn);
            dbus_connection_unref(conn);
            conn = NULL;
        }
    } else {
        conn = dbus_bus_get_private(DBUS_BUS_SESSION, err);
    }
    if (conn)
        dbus_connection_set_exit_on_disconnect(conn, FALSE);
    return conn;
}

/* Reads "[--address ADDRESS] NAME"; 0, or 2 after printing the usage. */
static inline int bench_server_args(int argc, char **argv, const char **address, const char **name)
{
    *address = NULL;
    *name = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--address") == 0 && i + 1 < argc)
            *address = argv[++i];
        else if (argv[i][0] != '-' && !*name)
            *name = argv[i];
        else {
            fprintf(stderr, "usage: %s [--address ADDRESS] NAME\n", argv[0]);
            return 2;
        }
    }
    if (!*name || !dbus_validate_bus_name(*name, NULL)) {
        fprintf(stderr, "usage: %s [--address ADDRESS] NAME (a valid bus name)\n", argv[0]);
        return 2;
    }
    return 0;
}

/* Sends `reply` to `call` unless the caller asked for none, and releases
 * it; what a message function returns after building its reply. */
static inline DBusHandlerResult bench_reply(DBusConnection *conn, DBusMessage *call, DBusMessage *reply)
{
    if (!reply)
        return DBUS_HANDLER_RESULT_NEED_MEMORY;
    if (!dbus_message_get_no_reply(call))
        dbus_connection_send(conn, reply, NULL);
    dbus_message_unref(reply);
    return DBUS_HANDLER_RESULT_HANDLED;
}

/* Connects, serves `path` with `handler` under `name` in a plain
 * dbus_connection_read_write_dispatch loop, and returns when the bus goes
 * away. `program` prefixes the errors. */
static inline int bench_serve(const char *program, const char *address, const char *name, const char *path,
                              DBusHandleMessageFunction handler)
{
    DBusError err;
    dbus_error_init(&err);
    DBusConnection *conn = bench_connect(address, &err);
    if (!conn) {
        fprintf(stderr, "%s: cannot connect: %s\n", program, err.message);
        dbus_error_free(&err);
        return 1;
    }
    const DBusObjectPathVTable vtable = { .message_function = handler };
    int status = 0;
    if (!dbus_connection_register_object_path(conn, path, &vtable, NULL)) {
        fprintf(stderr, "%s: out of memory\n", program);
        status = 1;
    } else if (dbus_bus_request_name(conn, name, DBUS_NAME_FLAG_DO_NOT_QUEUE, &err)
               != DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER) {
        fprintf(stderr, "%s: cannot own %s: %s\n", program, name,
                dbus_error_is_set(&err) ? err.message : "name taken");
        dbus_error_free(&err);
        status = 3;
    } else {
        while (dbus_connection_read_write_dispatch(conn, -1))
            ;
    }
    dbus_connection_close(conn);
    dbus_connection_unref(conn);
    return status;
}

#endif
