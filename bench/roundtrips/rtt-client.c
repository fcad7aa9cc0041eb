/*
 * rtt-client: blocking D-Bus round trips, timed call by call.
 *
 * For every destination name given it measures
 *   ping    org.freedesktop.DBus.Peer.Ping on /org/menubus/MenuBus1
 *   getall  org.freedesktop.DBus.Properties.GetAll("org.menubus.MenuBus1"),
 *           the reply decoded completely (every value read with the
 *           iterator API, recursively)
 * and, once, the floor:
 *   getid   org.freedesktop.DBus.GetId on the bus daemon itself.
 *
 * Each sample is one blocking call (dbus_connection_send_with_reply_and_block)
 * timed with CLOCK_MONOTONIC, from building the message to unref'ing the
 * decoded reply. After a warm-up the N calls of each (call, destination) are
 * split over R rounds; in every round the destinations (and the GetId floor)
 * take turns in a rotated order, so slow drift on a shared machine lands on
 * all of them alike. Percentiles are taken over all samples of a pair.
 *
 * Usage: rtt-client [--address ADDRESS] [-n N] [--rounds R] [--warmup W]
 *                   [--only KINDS] [--tsv] DEST [DEST...]
 *   -n N        calls of each kind per destination (default 10000)
 *   --rounds R  interleaving rounds (default 100)
 *   --warmup W  untimed calls of each kind per destination first (default 500)
 *   --only K,.. measure only these kinds (ping, getall, getid), e.g. for profiling
 *   --tsv       machine-readable output (rows "round" and "total", times in ns)
 * Exits 0 on success, 1 on any D-Bus error or unexpected reply, 2 on usage.
 *
 * Build: gcc -O2 -o rtt-client rtt-client.c $(pkg-config --cflags --libs dbus-1)
 */
#define _GNU_SOURCE
#include <dbus/dbus.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../lib/bench-bus.h"

#define PATH "/org/menubus/MenuBus1"
#define IFACE "org.menubus.MenuBus1"
#define TIMEOUT_MS 5000

enum kind { PING, GETALL, GETID };
static const char *const kind_names[] = { "ping", "getall", "getid" };

struct series {
    enum kind kind;
    const char *dest; /* "org.freedesktop.DBus" for getid */
    uint64_t *ns;
    size_t count;
};

static DBusConnection *conn;
static int enabled_kinds[3]; /* by enum kind, from --only */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *what, const char *dest, DBusError *err)
{
    fprintf(stderr, "rtt-client: %s to %s failed: %s: %s\n", what, dest,
            err && dbus_error_is_set(err) ? err->name : "unexpected reply",
            err && dbus_error_is_set(err) ? err->message : "");
    exit(1);
}

/* Reads every value under `iter`; returns the number of basic values, or -1. */
static long walk(DBusMessageIter *iter, uint64_t *checksum)
{
    long count = 0;
    int type;
    while ((type = dbus_message_iter_get_arg_type(iter)) != DBUS_TYPE_INVALID) {
        if (dbus_type_is_container(type)) {
            DBusMessageIter sub;
            dbus_message_iter_recurse(iter, &sub);
            long inner = walk(&sub, checksum);
            if (inner < 0)
                return -1;
            count += inner;
        } else if (dbus_type_is_basic(type)) {
            DBusBasicValue v;
            memset(&v, 0, sizeof v);
            dbus_message_iter_get_basic(iter, &v);
            if (type == DBUS_TYPE_STRING || type == DBUS_TYPE_OBJECT_PATH ||
                type == DBUS_TYPE_SIGNATURE) {
                for (const char *p = v.str; *p; p++)
                    *checksum = *checksum * 31u + (unsigned char)*p;
            } else {
                *checksum = *checksum * 31u + v.u64;
            }
            count++;
        } else {
            return -1;
        }
        dbus_message_iter_next(iter);
    }
    return count;
}

static DBusMessage *call(const char *dest, const char *path, const char *iface,
                         const char *member, const char *arg, const char *what)
{
    DBusMessage *msg = dbus_message_new_method_call(dest, path, iface, member);
    if (!msg) {
        fprintf(stderr, "rtt-client: out of memory\n");
        exit(1);
    }
    dbus_message_set_auto_start(msg, FALSE);
    if (arg && !dbus_message_append_args(msg, DBUS_TYPE_STRING, &arg, DBUS_TYPE_INVALID)) {
        fprintf(stderr, "rtt-client: out of memory\n");
        exit(1);
    }
    DBusError err;
    dbus_error_init(&err);
    DBusMessage *reply = dbus_connection_send_with_reply_and_block(conn, msg, TIMEOUT_MS, &err);
    dbus_message_unref(msg);
    if (!reply)
        die(what, dest, &err);
    return reply;
}

/* The 21 basic values of menubusd's GetAll: "Version", 1, "Stats", 9 x (key, value). */
#define GETALL_BASIC_VALUES 21
static volatile uint64_t sink;

static void one_call(enum kind kind, const char *dest)
{
    DBusMessage *reply;
    switch (kind) {
    case PING:
        reply = call(dest, PATH, "org.freedesktop.DBus.Peer", "Ping", NULL, "Ping");
        if (dbus_message_get_signature(reply)[0] != '\0')
            die("Ping", dest, NULL);
        break;
    case GETALL: {
        reply = call(dest, PATH, "org.freedesktop.DBus.Properties", "GetAll", IFACE, "GetAll");
        DBusMessageIter iter;
        uint64_t checksum = 0;
        if (strcmp(dbus_message_get_signature(reply), "a{sv}") != 0 ||
            !dbus_message_iter_init(reply, &iter) ||
            walk(&iter, &checksum) != GETALL_BASIC_VALUES)
            die("GetAll", dest, NULL);
        sink += checksum;
        break;
    }
    case GETID: {
        reply = call(DBUS_SERVICE_DBUS, DBUS_PATH_DBUS, DBUS_INTERFACE_DBUS, "GetId", NULL, "GetId");
        DBusMessageIter iter;
        uint64_t checksum = 0;
        if (strcmp(dbus_message_get_signature(reply), "s") != 0 ||
            !dbus_message_iter_init(reply, &iter) || walk(&iter, &checksum) != 1)
            die("GetId", DBUS_SERVICE_DBUS, NULL);
        sink += checksum;
        break;
    }
    default:
        abort();
    }
    dbus_message_unref(reply);
}

/* Reads one a{sv} entry: key and the variant's inner iterator. */
static int entry(DBusMessageIter *dict, const char **key, DBusMessageIter *value)
{
    DBusMessageIter e;
    if (dbus_message_iter_get_arg_type(dict) != DBUS_TYPE_DICT_ENTRY)
        return 0;
    dbus_message_iter_recurse(dict, &e);
    if (dbus_message_iter_get_arg_type(&e) != DBUS_TYPE_STRING)
        return 0;
    dbus_message_iter_get_basic(&e, key);
    dbus_message_iter_next(&e);
    if (dbus_message_iter_get_arg_type(&e) != DBUS_TYPE_VARIANT)
        return 0;
    dbus_message_iter_recurse(&e, value);
    dbus_message_iter_next(dict);
    return 1;
}

/* Checks, once per destination, that GetAll has exactly menubusd's shape. */
static void check_shape(const char *dest)
{
    static const char *const keys[] = { "version", "pid", "uptime-seconds", "apps", "contexts",
                                        "documents", "presentations", "providers", "rss-bytes" };
    static const int types[] = { 's', 'u', 't', 'u', 'u', 'u', 'u', 'u', 't' };
    DBusMessage *reply = call(dest, PATH, "org.freedesktop.DBus.Properties", "GetAll", IFACE, "GetAll");
    DBusMessageIter top, props, value, stats;
    const char *key;
    dbus_uint32_t version = 0;
    int ok = strcmp(dbus_message_get_signature(reply), "a{sv}") == 0 &&
             dbus_message_iter_init(reply, &top);
    if (ok) {
        dbus_message_iter_recurse(&top, &props);
        ok = entry(&props, &key, &value) && strcmp(key, "Version") == 0 &&
             dbus_message_iter_get_arg_type(&value) == DBUS_TYPE_UINT32;
    }
    if (ok) {
        dbus_message_iter_get_basic(&value, &version);
        ok = version == 1 && entry(&props, &key, &value) && strcmp(key, "Stats") == 0 &&
             dbus_message_iter_get_arg_type(&props) == DBUS_TYPE_INVALID;
    }
    if (ok) {
        char *sig = dbus_message_iter_get_signature(&value);
        ok = sig && strcmp(sig, "a{sv}") == 0;
        dbus_free(sig);
    }
    if (ok) {
        dbus_message_iter_recurse(&value, &stats);
        for (int i = 0; ok && i < (int)(sizeof keys / sizeof keys[0]); i++) {
            DBusMessageIter v;
            ok = entry(&stats, &key, &v) && strcmp(key, keys[i]) == 0 &&
                 dbus_message_iter_get_arg_type(&v) == types[i];
        }
        ok = ok && dbus_message_iter_get_arg_type(&stats) == DBUS_TYPE_INVALID;
    }
    if (!ok) {
        fprintf(stderr,
                "rtt-client: %s: GetAll reply is not {Version: u 1, Stats: a{sv} of version (s), pid (u),"
                " uptime-seconds (t), apps, contexts, documents, presentations, providers (u) and"
                " rss-bytes (t)}; if menubusd's properties"
                " changed, update bench/roundtrips/c-baseline-server.c and check_shape() to match\n",
                dest);
        exit(1);
    }
    dbus_message_unref(reply);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of a sorted array. */
static uint64_t pct(const uint64_t *sorted, size_t n, double q)
{
    size_t rank = (size_t)(q * (double)n + 0.999999);
    if (rank < 1)
        rank = 1;
    if (rank > n)
        rank = n;
    return sorted[rank - 1];
}

static void run_block(struct series *s, size_t calls, int tsv, int round)
{
    if (!enabled_kinds[s->kind])
        return;
    uint64_t *start = s->ns + s->count;
    for (size_t i = 0; i < calls; i++) {
        uint64_t t0 = now_ns();
        one_call(s->kind, s->dest);
        start[i] = now_ns() - t0;
    }
    s->count += calls;
    if (tsv && calls > 0) {
        uint64_t *copy = malloc(calls * sizeof *copy);
        memcpy(copy, start, calls * sizeof *copy);
        qsort(copy, calls, sizeof *copy, cmp_u64);
        printf("round\t%d\t%s\t%s\t%zu\t%llu\n", round, kind_names[s->kind], s->dest,
               calls, (unsigned long long)pct(copy, calls, 0.50));
        free(copy);
    }
}

static void usage(const char *argv0)
{
    fprintf(stderr,
            "usage: %s [--address ADDRESS] [-n N] [--rounds R] [--warmup W] [--only KINDS] [--tsv]"
            " DEST [DEST...]\n",
            argv0);
    exit(2);
}

int main(int argc, char **argv)
{
    const char *address = NULL;
    long n = 10000, rounds = 100, warmup = 500;
    int tsv = 0;
    const char *only = "ping,getall,getid";
    const char *dests[16];
    int ndest = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--address") == 0 && i + 1 < argc)
            address = argv[++i];
        else if (strcmp(a, "-n") == 0 && i + 1 < argc)
            n = strtol(argv[++i], NULL, 10);
        else if (strcmp(a, "--rounds") == 0 && i + 1 < argc)
            rounds = strtol(argv[++i], NULL, 10);
        else if (strcmp(a, "--warmup") == 0 && i + 1 < argc)
            warmup = strtol(argv[++i], NULL, 10);
        else if (strcmp(a, "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(a, "--tsv") == 0)
            tsv = 1;
        else if (a[0] != '-' && ndest < 16)
            dests[ndest++] = a;
        else
            usage(argv[0]);
    }
    if (ndest == 0 || n < 1 || rounds < 1 || rounds > n || warmup < 0)
        usage(argv[0]);
    {
        char *list = strdup(only), *save = NULL;
        for (char *k = strtok_r(list, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
            int found = 0;
            for (int j = 0; j < 3; j++)
                if (strcmp(k, kind_names[j]) == 0)
                    enabled_kinds[j] = found = 1;
            if (!found)
                usage(argv[0]);
        }
        free(list);
    }
    for (int d = 0; d < ndest; d++)
        if (!dbus_validate_bus_name(dests[d], NULL)) {
            fprintf(stderr, "rtt-client: not a bus name: %s\n", dests[d]);
            return 2;
        }

    DBusError err;
    dbus_error_init(&err);
    conn = bench_connect(address, &err);
    if (!conn) {
        fprintf(stderr, "rtt-client: cannot connect: %s\n", err.message);
        return 1;
    }

    /* Series: getid first, then ping and getall per destination. */
    size_t nseries = 1 + 2 * (size_t)ndest;
    struct series *series = calloc(nseries, sizeof *series);
    series[0].kind = GETID;
    series[0].dest = DBUS_SERVICE_DBUS;
    for (int d = 0; d < ndest; d++) {
        series[1 + 2 * d].kind = PING;
        series[1 + 2 * d].dest = dests[d];
        series[2 + 2 * d].kind = GETALL;
        series[2 + 2 * d].dest = dests[d];
    }
    for (size_t s = 0; s < nseries; s++) {
        series[s].ns = malloc((size_t)n * sizeof(uint64_t));
        if (!series[s].ns) {
            fprintf(stderr, "rtt-client: out of memory\n");
            return 1;
        }
    }

    for (int d = 0; d < ndest; d++)
        check_shape(dests[d]);
    for (long w = 0; w < warmup; w++)
        for (size_t s = 0; s < nseries; s++)
            if (enabled_kinds[series[s].kind])
                one_call(series[s].kind, series[s].dest);

    /* Groups rotate each round: [getid], [ping d0, getall d0], [ping d1, getall d1], ... */
    int ngroups = 1 + ndest;
    for (long r = 0; r < rounds; r++) {
        size_t calls = (size_t)(n / rounds + (r < n % rounds ? 1 : 0));
        for (int g = 0; g < ngroups; g++) {
            int group = (int)((g + r) % ngroups);
            if (group == 0) {
                run_block(&series[0], calls, tsv, (int)r + 1);
            } else {
                /* Within a destination, alternate which call goes first too. */
                int first = 1 + 2 * (group - 1), second = first + 1;
                if (r % 2) {
                    int t = first;
                    first = second;
                    second = t;
                }
                run_block(&series[first], calls, tsv, (int)r + 1);
                run_block(&series[second], calls, tsv, (int)r + 1);
            }
        }
    }

    if (!tsv)
        printf("%-7s %-28s %8s %10s %10s %10s %10s %10s\n", "call", "destination", "n",
               "p50 us", "p90 us", "p99 us", "mean us", "calls/s");
    for (size_t s = 0; s < nseries; s++) {
        struct series *x = &series[s];
        if (x->count == 0)
            continue;
        uint64_t sum = 0;
        for (size_t i = 0; i < x->count; i++)
            sum += x->ns[i];
        qsort(x->ns, x->count, sizeof *x->ns, cmp_u64);
        double mean = (double)sum / (double)x->count;
        double rate = 1e9 / mean;
        uint64_t p50 = pct(x->ns, x->count, 0.50), p90 = pct(x->ns, x->count, 0.90),
                 p99 = pct(x->ns, x->count, 0.99);
        if (tsv)
            printf("total\t%s\t%s\t%zu\t%llu\t%llu\t%llu\t%.0f\t%.0f\n", kind_names[x->kind],
                   x->dest, x->count, (unsigned long long)p50, (unsigned long long)p90,
                   (unsigned long long)p99, mean, rate);
        else
            printf("%-7s %-28s %8zu %10.1f %10.1f %10.1f %10.1f %10.0f\n", kind_names[x->kind],
                   x->dest, x->count, p50 / 1e3, p90 / 1e3, p99 / 1e3, mean / 1e3, rate);
    }

    dbus_connection_close(conn);
    dbus_connection_unref(conn);
    return 0;
}
