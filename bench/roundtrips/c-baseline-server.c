/*
 * c-baseline-server: the baseline menubusd is measured against.
 *
 * A minimal libdbus server with a plain dbus_connection_read_write_dispatch
 * loop. It owns the name given on the command line, serves
 * /org/menubus/MenuBus1 and answers
 * org.freedesktop.DBus.Properties.GetAll("org.menubus.MenuBus1") with the
 * same reply shape menubusd sends (read from menubusd with busctl):
 *
 *   a{sv} { "Version": <u 1>,
 *           "Stats": <a{sv} { "version": <s VERSION>, "pid": <u PID>,
 *                             "uptime-seconds": <t SECONDS>,
 *                             "apps": <u 0>, "contexts": <u 0>,
 *                             "documents": <u 0>, "presentations": <u 0>,
 *                             "providers": <u 0>,
 *                             "rss-bytes": <t RSS> }> }
 *
 * RSS is read from /proc/self/statm and the uptime from CLOCK_MONOTONIC on
 * every call, as menubusd does.
 * org.freedesktop.DBus.Peer.Ping is answered by libdbus itself.
 *
 * Usage: c-baseline-server [--address ADDRESS] NAME
 * Exits 0 when the bus goes away, 1 on setup errors, 2 on a usage error,
 * 3 if NAME cannot be owned.
 *
 * Build: gcc -O2 -o c-baseline-server c-baseline-server.c \
 *            $(pkg-config --cflags --libs dbus-1)
 */
#define _GNU_SOURCE
#include <dbus/dbus.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../lib/bench-bus.h"

#define PATH "/org/menubus/MenuBus1"
#define IFACE "org.menubus.MenuBus1"
#define PROPS "org.freedesktop.DBus.Properties"

static uint64_t started_at;

static uint64_t monotonic_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec;
}

static uint64_t resident_bytes(void)
{
    char buf[128];
    int fd = open("/proc/self/statm", O_RDONLY);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    unsigned long long size = 0, rss = 0;
    if (sscanf(buf, "%llu %llu", &size, &rss) != 2)
        return 0;
    return (uint64_t)rss * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* Appends { key: <value of type `type`> } to an a{sv} iterator. */
static int append_entry(DBusMessageIter *dict, const char *key, int type,
                        const void *value)
{
    DBusMessageIter entry, variant;
    char sig[2] = { (char)type, '\0' };
    if (!dbus_message_iter_open_container(dict, DBUS_TYPE_DICT_ENTRY, NULL, &entry))
        return 0;
    if (!dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &key))
        return 0;
    if (!dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, sig, &variant))
        return 0;
    if (!dbus_message_iter_append_basic(&variant, type, value))
        return 0;
    if (!dbus_message_iter_close_container(&entry, &variant))
        return 0;
    return dbus_message_iter_close_container(dict, &entry);
}

static int append_stats(DBusMessageIter *props)
{
    static const char *const counters[] = {
        "apps", "contexts", "documents", "presentations", "providers",
    };
    DBusMessageIter entry, variant, stats;
    const char *key = "Stats";
    const char *version = "0.1.0";
    dbus_uint32_t zero = 0, pid = (dbus_uint32_t)getpid();
    dbus_uint64_t uptime = monotonic_seconds() - started_at;
    dbus_uint64_t rss = resident_bytes();

    if (!dbus_message_iter_open_container(props, DBUS_TYPE_DICT_ENTRY, NULL, &entry))
        return 0;
    if (!dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &key))
        return 0;
    if (!dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, "a{sv}", &variant))
        return 0;
    if (!dbus_message_iter_open_container(&variant, DBUS_TYPE_ARRAY, "{sv}", &stats))
        return 0;
    if (!append_entry(&stats, "version", DBUS_TYPE_STRING, &version) ||
        !append_entry(&stats, "pid", DBUS_TYPE_UINT32, &pid) ||
        !append_entry(&stats, "uptime-seconds", DBUS_TYPE_UINT64, &uptime))
        return 0;
    for (size_t i = 0; i < sizeof counters / sizeof counters[0]; i++)
        if (!append_entry(&stats, counters[i], DBUS_TYPE_UINT32, &zero))
            return 0;
    if (!append_entry(&stats, "rss-bytes", DBUS_TYPE_UINT64, &rss))
        return 0;
    if (!dbus_message_iter_close_container(&variant, &stats))
        return 0;
    if (!dbus_message_iter_close_container(&entry, &variant))
        return 0;
    return dbus_message_iter_close_container(props, &entry);
}

static DBusMessage *get_all_reply(DBusMessage *call)
{
    DBusMessage *reply = dbus_message_new_method_return(call);
    DBusMessageIter iter, props;
    dbus_uint32_t version = 1;
    if (!reply)
        return NULL;
    dbus_message_iter_init_append(reply, &iter);
    if (!dbus_message_iter_open_container(&iter, DBUS_TYPE_ARRAY, "{sv}", &props) ||
        !append_entry(&props, "Version", DBUS_TYPE_UINT32, &version) ||
        !append_stats(&props) ||
        !dbus_message_iter_close_container(&iter, &props)) {
        dbus_message_unref(reply);
        return NULL;
    }
    return reply;
}

static DBusHandlerResult handle(DBusConnection *conn, DBusMessage *msg, void *data)
{
    (void)data;
    DBusMessage *reply = NULL;

    if (dbus_message_is_method_call(msg, PROPS, "GetAll")) {
        const char *iface = NULL;
        DBusError err;
        dbus_error_init(&err);
        if (!dbus_message_get_args(msg, &err, DBUS_TYPE_STRING, &iface, DBUS_TYPE_INVALID)) {
            reply = dbus_message_new_error(msg, DBUS_ERROR_INVALID_ARGS, err.message);
            dbus_error_free(&err);
        } else if (strcmp(iface, IFACE) == 0) {
            reply = get_all_reply(msg);
        } else {
            reply = dbus_message_new_error(msg, DBUS_ERROR_UNKNOWN_INTERFACE,
                                           "No such interface");
        }
    } else if (dbus_message_get_type(msg) == DBUS_MESSAGE_TYPE_METHOD_CALL) {
        reply = dbus_message_new_error(msg, DBUS_ERROR_UNKNOWN_METHOD, "No such method");
    } else {
        return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
    }
    return bench_reply(conn, msg, reply);
}

int main(int argc, char **argv)
{
    const char *address, *name;
    started_at = monotonic_seconds();
    int usage = bench_server_args(argc, argv, &address, &name);
    if (usage)
        return usage;
    return bench_serve("c-baseline-server", address, name, PATH, handle);
}
