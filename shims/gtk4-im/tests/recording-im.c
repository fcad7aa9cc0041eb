/* A GTK 4 IM module for the tests only: the context `menubus-recording`,
 * GTK's simple IM context (compose sequences, dead keys) that writes
 * each call it gets, one line a call, to the file MENUBUS_TEST_IM_LOG
 * names. Gtk4ImModuleTests has the `menubus` module wrap it and compares
 * its calls with those it gets when GTK uses it directly. */
#include <gtk/gtk.h>
#include <gtk/gtkimmodule.h>
#include <stdio.h>

typedef struct {
    GtkIMContextSimple parent_instance;
} Recording;

typedef struct {
    GtkIMContextSimpleClass parent_class;
} RecordingClass;

static GType recording_get_type (void);
G_DEFINE_DYNAMIC_TYPE (Recording, recording, GTK_TYPE_IM_CONTEXT_SIMPLE)

#define PARENT GTK_IM_CONTEXT_CLASS (recording_parent_class)

static void
record (const char *format, ...)
{
    static FILE *log;
    const char *path = g_getenv ("MENUBUS_TEST_IM_LOG");
    if (!log && path)
        log = fopen (path, "a");
    if (!log)
        return;
    va_list args;
    va_start (args, format);
    vfprintf (log, format, args);
    va_end (args);
    fputc ('\n', log);
    fflush (log);
}

static void
set_client_widget (GtkIMContext *context, GtkWidget *widget)
{
    record ("set-client-widget %s", widget ? G_OBJECT_TYPE_NAME (widget) : "NULL");
    if (PARENT->set_client_widget)
        PARENT->set_client_widget (context, widget);
}

/* On each press of a character it asks for the surrounding text, as IMs
 * like IBus do (retrieve-surrounding goes to the widget); Hyper_L deletes
 * the character before the caret through delete-surrounding. */
static gboolean
ask_the_widget (GtkIMContext *context, GdkEvent *event)
{
    guint keyval = gdk_key_event_get_keyval (event);
    if (keyval == GDK_KEY_Hyper_L) {
        gboolean done = FALSE;
        g_signal_emit_by_name (context, "delete-surrounding", -1, 1, &done);
        record ("delete-surrounding -> %d", done);
        return TRUE;
    }
    if (gdk_keyval_to_unicode (keyval)) {
        char *text = NULL;
        int cursor = 0, anchor = 0;
        if (gtk_im_context_get_surrounding_with_selection (context, &text, &cursor, &anchor))
            record ("surrounding '%s' %d %d", text, cursor, anchor);
        g_free (text);
    }
    return FALSE;
}

static gboolean
filter_keypress (GtkIMContext *context, GdkEvent *event)
{
    GdkEventType type = gdk_event_get_event_type (event);
    if (type == GDK_KEY_PRESS && ask_the_widget (context, event))
        return TRUE;
    gboolean handled = PARENT->filter_keypress (context, event);
    if (type == GDK_KEY_PRESS || type == GDK_KEY_RELEASE)
        record ("filter-keypress %s %s -> %d", type == GDK_KEY_PRESS ? "press" : "release",
                gdk_keyval_name (gdk_key_event_get_keyval (event)), handled);
    return handled;
}

static void
focus_in (GtkIMContext *context)
{
    record ("focus-in");
    if (PARENT->focus_in)
        PARENT->focus_in (context);
}

static void
focus_out (GtkIMContext *context)
{
    record ("focus-out");
    if (PARENT->focus_out)
        PARENT->focus_out (context);
}

static void
reset (GtkIMContext *context)
{
    record ("reset");
    if (PARENT->reset)
        PARENT->reset (context);
}

static void
set_cursor_location (GtkIMContext *context, GdkRectangle *area)
{
    record ("set-cursor-location");
    if (PARENT->set_cursor_location)
        PARENT->set_cursor_location (context, area);
}

static void
set_use_preedit (GtkIMContext *context, gboolean use_preedit)
{
    record ("set-use-preedit %d", use_preedit);
    if (PARENT->set_use_preedit)
        PARENT->set_use_preedit (context, use_preedit);
}

static void
set_surrounding_with_selection (GtkIMContext *context, const char *text, int len, int cursor, int anchor)
{
    record ("set-surrounding %d %d", cursor, anchor);
    if (PARENT->set_surrounding_with_selection)
        PARENT->set_surrounding_with_selection (context, text, len, cursor, anchor);
}

static gboolean
get_surrounding_with_selection (GtkIMContext *context, char **text, int *cursor, int *anchor)
{
    gboolean found = PARENT->get_surrounding_with_selection (context, text, cursor, anchor);
    record ("get-surrounding -> %d", found);
    return found;
}

static void
recording_init (Recording *self)
{
}

static void
recording_class_init (RecordingClass *klass)
{
    GtkIMContextClass *im = GTK_IM_CONTEXT_CLASS (klass);
    im->set_client_widget = set_client_widget;
    im->filter_keypress = filter_keypress;
    im->focus_in = focus_in;
    im->focus_out = focus_out;
    im->reset = reset;
    im->set_cursor_location = set_cursor_location;
    im->set_use_preedit = set_use_preedit;
    im->set_surrounding_with_selection = set_surrounding_with_selection;
    im->get_surrounding_with_selection = get_surrounding_with_selection;
}

static void
recording_class_finalize (RecordingClass *klass)
{
}

G_MODULE_EXPORT void
g_io_module_load (GIOModule *module)
{
    g_type_module_use (G_TYPE_MODULE (module));
    recording_register_type (G_TYPE_MODULE (module));
    g_io_extension_point_implement (GTK_IM_MODULE_EXTENSION_POINT_NAME, recording_get_type (),
                                    "menubus-recording", G_MININT);
}

G_MODULE_EXPORT void
g_io_module_unload (GIOModule *module)
{
}

G_MODULE_EXPORT char **
g_io_module_query (void)
{
    char *points[] = { (char *) GTK_IM_MODULE_EXTENSION_POINT_NAME, NULL };
    return g_strdupv (points);
}
