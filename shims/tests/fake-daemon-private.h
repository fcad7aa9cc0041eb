/* The fake menubusd's parts, shared by its two files: fake-daemon.c (its
 * life, what a test chooses, the dispatch) and fake-contract.c (what the
 * contract answers, and the state behind it). */
#ifndef FAKE_DAEMON_PRIVATE_H
#define FAKE_DAEMON_PRIVATE_H

#include "fake-daemon.h"
#include "menubus-names.h" /* the shims' names of the contract */

typedef enum { MODE_ANSWER, MODE_ERROR, MODE_BODY, MODE_HOLD } Mode;

typedef struct {
    Mode mode;
    gchar *error;
    GVariant *body;
    guint delay_ms;
} Behaviour;

typedef struct {
    gchar *path;
    gchar *context;
    gchar *presenter;
    guint registration;
    gboolean closed;
} Menu;

/* One undo step: its payloads in the order they were registered. */
typedef struct {
    gchar *name;
    gchar *merge_key;
    GPtrArray *undo; /* GVariant ay */
    GPtrArray *redo;
} Step;

typedef struct {
    GPtrArray *steps;
    guint done; /* steps [0, done) can be undone */
} Document;

struct _FakeDaemon {
    GDBusConnection *bus;
    GDBusNodeInfo *manager_info;
    GDBusNodeInfo *menu_info;
    guint manager_registration;
    GHashTable *behaviours; /* method → Behaviour */
    GPtrArray *held;        /* GDBusMethodInvocation */
    GPtrArray *calls;       /* (s method, v args) */
    GHashTable *contexts;   /* id → selection (a{sv}) or a floating-free empty dict */
    guint max_contexts;
    guint revision;
    GPtrArray *menus;       /* Menu */
    GHashTable *documents;  /* id → Document */
    GVariant *items;
    gboolean announce;
    gchar *client;
    gchar *client_path;
    GPtrArray *timers;      /* pending fake_delay answers, removed when freed */
};

/* The contract's answer to a call; takes the invocation. */
void fake_contract_answer (FakeDaemon *fake, GDBusMethodInvocation *invocation);
/* The contract's state: made by fake_daemon_new, freed by fake_daemon_free. */
void fake_contract_init (FakeDaemon *fake);
void fake_contract_clear (FakeDaemon *fake);
/* Every call, the manager's and the menus': the dispatch. */
extern const GDBusInterfaceVTable fake_vtable;

#endif
