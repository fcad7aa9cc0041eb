/* The `menubus` IM context: every GtkIMContext call goes to the wrapped
 * context (the IM the session would have used), every signal of the
 * wrapped context is emitted again from this one, unchanged, so input
 * methods, compose sequences, preedit and surrounding text behave as
 * without it. Beside that, the client widget GTK names is handed to
 * im-client.c. With no wrapped context (`none`) it does what
 * GtkIMContext does by default. */
#include "im-menubus.h"
#include "menubus-policy.h"

struct _MbImContext {
    GtkIMContext parent_instance;
    GtkIMContext *inner;  /* the wrapped context; NULL for `none` */
    gboolean named;       /* the session named `menubus`: attach clients */
    MbImClient *client;   /* MenuBus on the client widget, or NULL */
};

G_DEFINE_DYNAMIC_TYPE (MbImContext, mb_im_context, GTK_TYPE_IM_CONTEXT)

#define PARENT_CLASS GTK_IM_CONTEXT_CLASS (mb_im_context_parent_class)

/* ---------- the wrapped context's signals, emitted again ---------- */

static void
on_preedit_start (GtkIMContext *inner, gpointer self)
{
    g_signal_emit_by_name (self, "preedit-start");
}

static void
on_preedit_end (GtkIMContext *inner, gpointer self)
{
    g_signal_emit_by_name (self, "preedit-end");
}

static void
on_preedit_changed (GtkIMContext *inner, gpointer self)
{
    g_signal_emit_by_name (self, "preedit-changed");
}

static void
on_commit (GtkIMContext *inner, const char *text, gpointer self)
{
    g_signal_emit_by_name (self, "commit", text);
}

static gboolean
on_retrieve_surrounding (GtkIMContext *inner, gpointer self)
{
    gboolean handled = FALSE;
    g_signal_emit_by_name (self, "retrieve-surrounding", &handled);
    return handled;
}

static gboolean
on_delete_surrounding (GtkIMContext *inner, int offset, int n_chars, gpointer self)
{
    gboolean handled = FALSE;
    g_signal_emit_by_name (self, "delete-surrounding", offset, n_chars, &handled);
    return handled;
}

/* The input purpose and hints GtkText and GtkTextView set go on to the
 * wrapped context; a password purpose also ends MenuBus on the client. */
static void
on_purpose (GObject *object, GParamSpec *pspec, gpointer data)
{
    MbImContext *self = MB_IM_CONTEXT (object);
    GtkInputPurpose purpose;
    GtkInputHints hints;
    g_object_get (self, "input-purpose", &purpose, "input-hints", &hints, NULL);
    if (self->inner)
        g_object_set (self->inner, "input-purpose", purpose, "input-hints", hints, NULL);
    if (self->client)
        mb_im_client_purpose (self->client, purpose);
}

/* ---------- the calls, forwarded ---------- */

static void
set_client_widget (GtkIMContext *context, GtkWidget *widget)
{
    MbImContext *self = MB_IM_CONTEXT (context);
    if (self->inner)
        gtk_im_context_set_client_widget (self->inner, widget);
    /* A new client widget, or none: MenuBus follows. */
    g_clear_pointer (&self->client, mb_im_client_free);
    if (widget && self->named) {
        GtkInputPurpose purpose;
        g_object_get (self, "input-purpose", &purpose, NULL);
        self->client = mb_im_client_new (widget, purpose);
    }
}

static void
get_preedit_string (GtkIMContext *context, char **text, PangoAttrList **attrs, int *cursor)
{
    MbImContext *self = MB_IM_CONTEXT (context);
    if (self->inner)
        gtk_im_context_get_preedit_string (self->inner, text, attrs, cursor);
    else if (PARENT_CLASS->get_preedit_string)
        PARENT_CLASS->get_preedit_string (context, text, attrs, cursor);
}

static gboolean
filter_keypress (GtkIMContext *context, GdkEvent *event)
{
    MbImContext *self = MB_IM_CONTEXT (context);
    return self->inner ? gtk_im_context_filter_keypress (self->inner, event) : FALSE;
}

static void
focus_in (GtkIMContext *context)
{
    MbImContext *self = MB_IM_CONTEXT (context);
    if (self->inner)
        gtk_im_context_focus_in (self->inner);
}

static void
focus_out (GtkIMContext *context)
{
    MbImContext *self = MB_IM_CONTEXT (context);
    if (self->inner)
        gtk_im_context_focus_out (self->inner);
}

static void
reset (GtkIMContext *context)
{
    MbImContext *self = MB_IM_CONTEXT (context);
    if (self->inner)
        gtk_im_context_reset (self->inner);
}

static void
set_cursor_location (GtkIMContext *context, GdkRectangle *area)
{
    MbImContext *self = MB_IM_CONTEXT (context);
    if (self->inner)
        gtk_im_context_set_cursor_location (self->inner, area);
}

static void
set_use_preedit (GtkIMContext *context, gboolean use_preedit)
{
    MbImContext *self = MB_IM_CONTEXT (context);
    if (self->inner)
        gtk_im_context_set_use_preedit (self->inner, use_preedit);
}

static void
set_surrounding_with_selection (GtkIMContext *context, const char *text, int len, int cursor, int anchor)
{
    MbImContext *self = MB_IM_CONTEXT (context);
    if (self->inner)
        gtk_im_context_set_surrounding_with_selection (self->inner, text, len, cursor, anchor);
    else if (PARENT_CLASS->set_surrounding_with_selection)
        PARENT_CLASS->set_surrounding_with_selection (context, text, len, cursor, anchor);
}

static gboolean
get_surrounding_with_selection (GtkIMContext *context, char **text, int *cursor, int *anchor)
{
    MbImContext *self = MB_IM_CONTEXT (context);
    if (self->inner)
        return gtk_im_context_get_surrounding_with_selection (self->inner, text, cursor, anchor);
    if (PARENT_CLASS->get_surrounding_with_selection)
        return PARENT_CLASS->get_surrounding_with_selection (context, text, cursor, anchor);
    return FALSE;
}

/* The older pair (GTK calls the _with_selection ones when a class has
 * them), kept so a caller of the old vfuncs reaches the wrapped IM too. */
static void
set_surrounding (GtkIMContext *context, const char *text, int len, int cursor)
{
    set_surrounding_with_selection (context, text, len, cursor, cursor);
}

static gboolean
get_surrounding (GtkIMContext *context, char **text, int *cursor)
{
    int anchor;
    return get_surrounding_with_selection (context, text, cursor, &anchor);
}

/* ---------- the type ---------- */

static void
mb_im_context_init (MbImContext *self)
{
    GdkDisplay *display = gdk_display_get_default ();
    gchar *id = mb_im_wrapped_id (display);
    self->inner = mb_im_wrapped_new (id);
    self->named = mb_im_named (display);
    MB_DEBUG ("IM module: wrapping '%s'%s", id, self->named ? "" : " (not named by the session: no menus)");
    g_free (id);
    if (self->inner) {
        g_signal_connect (self->inner, "preedit-start", G_CALLBACK (on_preedit_start), self);
        g_signal_connect (self->inner, "preedit-end", G_CALLBACK (on_preedit_end), self);
        g_signal_connect (self->inner, "preedit-changed", G_CALLBACK (on_preedit_changed), self);
        g_signal_connect (self->inner, "commit", G_CALLBACK (on_commit), self);
        g_signal_connect (self->inner, "retrieve-surrounding", G_CALLBACK (on_retrieve_surrounding), self);
        g_signal_connect (self->inner, "delete-surrounding", G_CALLBACK (on_delete_surrounding), self);
    }
    g_signal_connect (self, "notify::input-purpose", G_CALLBACK (on_purpose), NULL);
    g_signal_connect (self, "notify::input-hints", G_CALLBACK (on_purpose), NULL);
}

static void
dispose (GObject *object)
{
    MbImContext *self = MB_IM_CONTEXT (object);
    g_clear_pointer (&self->client, mb_im_client_free);
    if (self->inner) {
        g_signal_handlers_disconnect_by_data (self->inner, self);
        g_clear_object (&self->inner);
    }
    G_OBJECT_CLASS (mb_im_context_parent_class)->dispose (object);
}

static void
mb_im_context_class_init (MbImContextClass *klass)
{
    GtkIMContextClass *im = GTK_IM_CONTEXT_CLASS (klass);
    G_OBJECT_CLASS (klass)->dispose = dispose;
    im->set_client_widget = set_client_widget;
    im->get_preedit_string = get_preedit_string;
    im->filter_keypress = filter_keypress;
    im->focus_in = focus_in;
    im->focus_out = focus_out;
    im->reset = reset;
    im->set_cursor_location = set_cursor_location;
    im->set_use_preedit = set_use_preedit;
    im->set_surrounding = set_surrounding;
    im->get_surrounding = get_surrounding;
    im->set_surrounding_with_selection = set_surrounding_with_selection;
    im->get_surrounding_with_selection = get_surrounding_with_selection;
}

static void
mb_im_context_class_finalize (MbImContextClass *klass)
{
}

void
mb_im_context_register (GTypeModule *module)
{
    mb_im_context_register_type (module);
}
