/* A text field's side of MenuBus in C with GLib's GDBus.
 *
 * Registers with menubusd, publishes one text field and its selection, keeps
 * its undo history in menubusd, and handles Copy, Undo and a provider's
 * replace-selection chosen in its edit menu. It serves the Client members
 * every app serves (README, "Join MenuBus from your app"): PerformCommand,
 * ActionInvoked and GetSelectedText; it publishes no deferred elements, so it
 * needs no ProvideElements. With --demo it plays a short scripted session,
 * clears the draft's undo history as the draft closes, and exits; with
 * --demo-provider ITEM it chooses a provider's item instead (its selection
 * carries no text, so menubusd asks GetSelectedText for it) and shows the
 * undo step the replacement left. It watches the name org.menubus.MenuBus1:
 * when menubusd restarts (a crash, an upgrade, menubusd --replace) it
 * registers and publishes again.
 *
 *   cc -o editor editor.c $(pkg-config --cflags --libs gio-2.0)
 *   ./editor --demo
 */
#include <gio/gio.h>
#include <stdio.h>
#include <string.h>

#define BUS_NAME "org.menubus.MenuBus1"
#define MANAGER "/org/menubus/MenuBus1"
#define CLIENT_PATH "/org/example/CEditor/MenuBusClient"
#define FIELD "body"
#define DOCUMENT "draft"

static const char client_xml[] =
    "<node><interface name='org.menubus.MenuBus1.Client'>"
    "<method name='ActionInvoked'><arg type='s' direction='in'/><arg type='s' direction='in'/>"
    "<arg type='a{sv}' direction='in'/></method>"
    "<method name='PerformCommand'><arg type='s' direction='in'/><arg type='s' direction='in'/>"
    "<arg type='a{sv}' direction='in'/></method>"
    "<method name='GetSelectedText'><arg type='s' direction='in'/><arg type='s' direction='out'/></method>"
    "</interface></node>";

typedef struct {
    GDBusConnection *bus;
    GString *text;
    gboolean all_selected; /* the demo selects all of the text or nothing */
    char *clipboard;
    char *last_command;
    char *daemon; /* the unique name of the menubusd we published to; "" while it is gone */
} Editor;

static GVariant *call(Editor *editor, const char *path, const char *interface, const char *member,
                      GVariant *args, const char *reply_type) {
    GError *error = NULL;
    GVariant *reply = g_dbus_connection_call_sync(editor->bus, BUS_NAME, path, interface, member, args,
                                                  reply_type ? G_VARIANT_TYPE(reply_type) : NULL,
                                                  G_DBUS_CALL_FLAGS_NONE, 5000, NULL, &error);
    if (!reply) {
        fprintf(stderr, "editor: %s failed: %s\n", member, error->message);
        exit(1);
    }
    return reply;
}

static GVariant *manager(Editor *editor, const char *member, GVariant *args, const char *reply_type) {
    return call(editor, MANAGER, "org.menubus.MenuBus1", member, args, reply_type);
}

static void register_undo(Editor *editor, const char *name, const char *before, gsize before_len,
                          GVariant *options);

static void perform(Editor *editor, const char *command, GVariant *arguments) {
    g_free(editor->last_command);
    editor->last_command = g_strdup(command);
    if (strcmp(command, "copy") == 0) {
        g_free(editor->clipboard);
        editor->clipboard = g_strdup(editor->text->str);
        printf("copied \"%s\"\n", editor->clipboard);
    } else if (strcmp(command, "undo") == 0) {
        /* The app pulls the step itself; payloads come newest first. */
        GVariant *reply = manager(editor, "Undo", g_variant_new("(s)", DOCUMENT), "(saay)");
        const char *name;
        GVariantIter *payloads;
        g_variant_get(reply, "(&saay)", &name, &payloads);
        GVariant *payload, *oldest = NULL;
        while ((payload = g_variant_iter_next_value(payloads))) {
            if (oldest) g_variant_unref(oldest);
            oldest = payload;
        }
        if (oldest) {
            gsize size;
            const char *bytes = g_variant_get_fixed_array(oldest, &size, 1);
            g_string_overwrite_len(g_string_truncate(editor->text, 0), 0, bytes, size);
            g_variant_unref(oldest);
        }
        printf("undid \"%s\": text is now \"%s\"\n", name, editor->text->str);
        g_variant_iter_free(payloads);
        g_variant_unref(reply);
    } else if (strcmp(command, "replace-selection") == 0) {
        /* A provider's result: one undo step named as the menu item was
         * ("Make Uppercase"), so the next edit menu offers "Undo Make Uppercase".
         * The demo's selection is all of the text. */
        const char *replacement = "", *undo_name = "Replace";
        g_variant_lookup(arguments, "text", "&s", &replacement);
        g_variant_lookup(arguments, "undo-name", "&s", &undo_name);
        char *before = g_strdup(editor->text->str);
        gsize before_len = editor->text->len;
        g_string_assign(editor->text, replacement);
        register_undo(editor, undo_name, before, before_len, NULL);
        g_free(before);
        printf("replaced the selection with \"%s\"\n", editor->text->str);
    }
}

/* Only menubusd may call the client object: any connection of the session can
 * send a call to this path, so compare the sender with the unique name owning
 * org.menubus.MenuBus1 (asked again when it differs: menubusd may restart). */
static gboolean from_menubusd(Editor *editor, const char *sender) {
    if (sender && editor->daemon && strcmp(sender, editor->daemon) == 0) return TRUE;
    GVariant *reply = g_dbus_connection_call_sync(editor->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                  "org.freedesktop.DBus", "GetNameOwner", g_variant_new("(s)", BUS_NAME),
                                                  G_VARIANT_TYPE("(s)"), G_DBUS_CALL_FLAGS_NONE, 5000, NULL, NULL);
    if (!reply) return FALSE;
    /* Not stored: the name watcher records a new owner and publishes again. */
    const char *owner = NULL;
    g_variant_get(reply, "(&s)", &owner);
    gboolean same = sender && strcmp(sender, owner) == 0;
    g_variant_unref(reply);
    return same;
}

static void on_call(GDBusConnection *bus, const char *sender, const char *path, const char *interface,
                    const char *method, GVariant *params, GDBusMethodInvocation *invocation, gpointer data) {
    Editor *editor = data;
    if (!from_menubusd(editor, sender)) {
        g_dbus_method_invocation_return_dbus_error(invocation, "org.freedesktop.DBus.Error.AccessDenied",
                                                   "only menubusd may call this object");
        return;
    }
    if (strcmp(method, "GetSelectedText") == 0) {
        /* A provider was chosen and the selection carried no text. */
        printf("menubusd asked for the selected text\n");
        g_dbus_method_invocation_return_value(invocation,
                                              g_variant_new("(s)", editor->all_selected ? editor->text->str : ""));
        return;
    }
    const char *context, *what;
    GVariant *arguments;
    g_variant_get(params, "(&s&s@a{sv})", &context, &what, &arguments);
    if (strcmp(method, "PerformCommand") == 0) perform(editor, what, arguments);
    else printf("item %s chosen\n", what);
    g_variant_unref(arguments);
    g_dbus_method_invocation_return_value(invocation, NULL);
}

static const GDBusInterfaceVTable vtable = {on_call, NULL, NULL, {0}};

/* One undo step from `before` to the current text; `options` may be NULL. */
static void register_undo(Editor *editor, const char *name, const char *before, gsize before_len,
                          GVariant *options) {
    GVariant *undo = g_variant_new_fixed_array(G_VARIANT_TYPE_BYTE, before, before_len, 1);
    GVariant *redo = g_variant_new_fixed_array(G_VARIANT_TYPE_BYTE, editor->text->str, editor->text->len, 1);
    if (!options) options = g_variant_new_array(G_VARIANT_TYPE("{sv}"), NULL, 0);
    g_variant_unref(manager(editor, "RegisterUndo",
                            g_variant_new("(ss@ay@ay@a{sv})", DOCUMENT, name, undo, redo, options), "(u)"));
}

static void type_text(Editor *editor, const char *typed) {
    char *before = g_strdup(editor->text->str);
    gsize before_len = editor->text->len;
    g_string_append(editor->text, typed);
    GVariantBuilder options;
    g_variant_builder_init(&options, G_VARIANT_TYPE("a{sv}"));
    g_variant_builder_add(&options, "{sv}", "merge-key", g_variant_new_string("typing"));
    register_undo(editor, "Typing", before, before_len, g_variant_builder_end(&options));
    g_free(before);
}

/* The title menubusd gives the Undo item of the edit menu now ("Undo Typing"). */
static char *undo_title(Editor *editor) {
    GVariant *reply = manager(editor, "GetEditMenu", g_variant_new("(ssa{sv})", "", FIELD, NULL), "(ua(ssa{sv}))");
    GVariantIter *elements;
    const char *id, *parent;
    GVariant *props;
    char *title = NULL;
    g_variant_get(reply, "(ua(ssa{sv}))", NULL, &elements);
    while (g_variant_iter_next(elements, "(&s&s@a{sv})", &id, &parent, &props)) {
        const char *found;
        if (!title && strcmp(id, "menubus:undo") == 0 && g_variant_lookup(props, "title", "&s", &found))
            title = g_strdup(found);
        g_variant_unref(props);
    }
    g_variant_iter_free(elements);
    g_variant_unref(reply);
    return title;
}

static void choose(Editor *editor, const char *item, const char *expected) {
    GVariant *reply = manager(editor, "PresentMenu", g_variant_new("(sssa{sv})", "", FIELD, "edit", NULL), "(o)");
    const char *path;
    g_variant_get(reply, "(&o)", &path);
    g_variant_unref(call(editor, path, "org.menubus.MenuBus1.Menu", "Activate",
                         g_variant_new("(sa{sv})", item, NULL), NULL));
    g_free(editor->last_command);
    editor->last_command = NULL;
    gint64 deadline = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;
    while ((!editor->last_command || strcmp(editor->last_command, expected) != 0) && g_get_monotonic_time() < deadline)
        g_main_context_iteration(NULL, TRUE);
    g_variant_unref(reply);
    if (!editor->last_command || strcmp(editor->last_command, expected) != 0) {
        fprintf(stderr, "editor: %s did not arrive\n", expected);
        exit(1);
    }
}

/* What menubusd keeps only in memory: the registration and the context. */
static void register_and_publish(Editor *editor) {
    g_variant_unref(manager(editor, "Register", g_variant_new("(soa{sv})", "org.example.CEditor", CLIENT_PATH, NULL), NULL));
    GVariantBuilder context;
    g_variant_builder_init(&context, G_VARIANT_TYPE("a{sv}"));
    g_variant_builder_add(&context, "{sv}", "kind", g_variant_new_string("text"));
    g_variant_builder_add(&context, "{sv}", "editable", g_variant_new_boolean(TRUE));
    g_variant_builder_add(&context, "{sv}", "has-content", g_variant_new_boolean(TRUE));
    g_variant_builder_add(&context, "{sv}", "document", g_variant_new_string(DOCUMENT));
    g_variant_unref(manager(editor, "PublishContext",
                            g_variant_new("(sa{sv}a(ssa{sv}))", FIELD, &context, NULL), "(u)"));
}

/* A menubusd owns the name: a new one after a restart gets everything again. */
static void daemon_appeared(GDBusConnection *bus, const char *name, const char *owner, gpointer data) {
    Editor *editor = data;
    if (editor->daemon && strcmp(editor->daemon, owner) != 0) {
        register_and_publish(editor);
        printf("menubusd restarted (%s); registered and published \"%s\" again\n", owner, FIELD);
        fflush(stdout);
    }
    g_free(editor->daemon);
    editor->daemon = g_strdup(owner);
}

static void daemon_vanished(GDBusConnection *bus, const char *name, gpointer data) {
    Editor *editor = data;
    if (editor->daemon && *editor->daemon) {
        printf("menubusd left the bus; waiting for it to come back\n");
        fflush(stdout);
        g_free(editor->daemon);
        editor->daemon = g_strdup("");
    }
}

int main(int argc, char **argv) {
    gboolean demo = argc > 1 && strcmp(argv[1], "--demo") == 0;
    const char *provider_item = argc > 2 && strcmp(argv[1], "--demo-provider") == 0 ? argv[2] : NULL;
    GError *error = NULL;
    Editor editor = {g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &error), g_string_new(""), FALSE, NULL, NULL, NULL};
    if (!editor.bus) {
        fprintf(stderr, "editor: no session bus: %s\n", error->message);
        return 1;
    }
    GDBusNodeInfo *info = g_dbus_node_info_new_for_xml(client_xml, NULL);
    g_dbus_connection_register_object(editor.bus, CLIENT_PATH, info->interfaces[0], &vtable, &editor, NULL, NULL);
    register_and_publish(&editor);
    g_bus_watch_name_on_connection(editor.bus, BUS_NAME, G_BUS_NAME_WATCHER_FLAGS_NONE, daemon_appeared,
                                   daemon_vanished, &editor, NULL);
    if (provider_item) {
        type_text(&editor, "hi there");
        GVariantBuilder selected;
        g_variant_builder_init(&selected, G_VARIANT_TYPE("a{sv}"));
        g_variant_builder_add(&selected, "{sv}", "kind", g_variant_new_string("all"));
        g_variant_builder_add(&selected, "{sv}", "length", g_variant_new_uint32(editor.text->len));
        editor.all_selected = TRUE;
        g_variant_unref(manager(&editor, "UpdateSelection", g_variant_new("(sa{sv})", FIELD, &selected), NULL));
        choose(&editor, provider_item, "replace-selection");
        char *title = undo_title(&editor);
        printf("text is now \"%s\"; the edit menu offers \"%s\"\n", editor.text->str, title ? title : "");
        g_free(title);
        choose(&editor, "menubus:undo", "undo");
        printf("done\n");
        return 0;
    }
    if (!demo) {
        printf("org.example.CEditor is serving; Ctrl-C stops\n");
        fflush(stdout);
        g_main_loop_run(g_main_loop_new(NULL, FALSE));
        return 0;
    }
    type_text(&editor, "h");
    type_text(&editor, "i");
    GVariantBuilder selection;
    g_variant_builder_init(&selection, G_VARIANT_TYPE("a{sv}"));
    g_variant_builder_add(&selection, "{sv}", "kind", g_variant_new_string("all"));
    g_variant_builder_add(&selection, "{sv}", "length", g_variant_new_uint32(editor.text->len));
    editor.all_selected = TRUE;
    g_variant_unref(manager(&editor, "UpdateSelection", g_variant_new("(sa{sv})", FIELD, &selection), NULL));
    choose(&editor, "menubus:copy", "copy");
    choose(&editor, "menubus:undo", "undo");
    /* The draft closes unsaved: nobody will reopen it, so its history goes too. */
    g_variant_unref(manager(&editor, "ClearUndo", g_variant_new("(s)", DOCUMENT), NULL));
    printf("closed the draft and cleared its undo history\n");
    printf("done\n");
    return 0;
}
