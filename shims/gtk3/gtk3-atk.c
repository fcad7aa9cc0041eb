/* Widgets that draw their own text but expose it through ATK (geany's
 * ScintillaObject): a focused widget that is no GtkEntry, GtkTextView or
 * GtkLabel but whose AtkObject is a text (not a password) implementing
 * AtkText and AtkEditableText is a field too. Its selection is read
 * through AtkText; a replacement is a deletion and an insertion through
 * AtkEditableText (in Scintilla, one undo step: the two are bracketed by
 * its own SCI_BEGINUNDOACTION/SCI_ENDUNDOACTION where the program exports
 * scintilla_send_message, as geany does for its plugins), and the new
 * text is selected. Undo stays the app's own.
 *
 * Its menu is the app's own GtkMenu, shown while a right button press or
 * the Menu key (Shift+F10) goes to the focused widget: MenuBus's items
 * join it (gtk3-popup.c), those with the title of one of the app's own
 * items left out, so each standard item shows once. */
#include <gtk/gtk.h>
#include <string.h>

#include "gtk3-module.h"

#define SCI_BEGINUNDOACTION 2078
#define SCI_ENDUNDOACTION 2079

/* A context menu is being asked for over it: weak, and forgotten on the
 * loop's next idle turn. */
static GWeakRef menu_target;

static AtkObject *
accessible_of (GtkWidget *widget)
{
    return widget ? gtk_widget_get_accessible (widget) : NULL;
}

gboolean
gtk3_atk_takes_part (GtkWidget *widget)
{
    if (!GTK_IS_WIDGET (widget) || GTK_IS_ENTRY (widget) || GTK_IS_TEXT_VIEW (widget) || GTK_IS_LABEL (widget) ||
        GTK_IS_MENU_SHELL (widget) || g_object_get_data (G_OBJECT (widget), EXCLUDE_KEY))
        return FALSE;
    AtkObject *accessible = accessible_of (widget);
    return accessible && ATK_IS_TEXT (accessible) && ATK_IS_EDITABLE_TEXT (accessible) &&
           atk_object_get_role (accessible) == ATK_ROLE_TEXT;
}

static gboolean
is_editable (AtkObject *accessible)
{
    AtkStateSet *states = atk_object_ref_state_set (accessible);
    gboolean editable = states && atk_state_set_contains_state (states, ATK_STATE_EDITABLE);
    g_clear_object (&states);
    return editable;
}

static MbFieldFlags
atk_field_flags (gpointer data)
{
    AtkObject *accessible = accessible_of (data);
    if (!accessible || !ATK_IS_TEXT (accessible))
        return 0;
    MbFieldFlags flags = 0;
    if (is_editable (accessible) && ATK_IS_EDITABLE_TEXT (accessible))
        flags |= MB_FIELD_EDITABLE;
    if (atk_text_get_character_count (ATK_TEXT (accessible)) > 0)
        flags |= MB_FIELD_HAS_CONTENT;
    return flags;
}

/* The selection, or the caret as an empty range. */
static gboolean
selected_range (AtkText *text, gint *start, gint *end)
{
    *start = *end = atk_text_get_caret_offset (text);
    if (*start < 0)
        *start = *end = 0;
    if (atk_text_get_n_selections (text) > 0) {
        gint a = 0, b = 0;
        g_free (atk_text_get_selection (text, 0, &a, &b));
        if (a != b) {
            *start = MIN (a, b);
            *end = MAX (a, b);
        }
    }
    return TRUE;
}

static void
atk_field_selection (gpointer data, MbSelection *out)
{
    out->kind = MB_SELECTION_NONE;
    AtkObject *accessible = accessible_of (data);
    if (!accessible || !ATK_IS_TEXT (accessible))
        return;
    AtkText *text = ATK_TEXT (accessible);
    gint start = 0, end = 0;
    selected_range (text, &start, &end);
    if (start == end) {
        out->kind = MB_SELECTION_CARET;
        return;
    }
    out->kind = start == 0 && end >= atk_text_get_character_count (text) ? MB_SELECTION_ALL : MB_SELECTION_RANGE;
    out->length = (guint) (end - start);
    if (out->length <= 65536)
        out->text = atk_text_get_text (text, start, end);
}

/* Scintilla's own message function, where the program exports it. */
typedef glong (*SciSend) (gpointer sci, guint message, gulong wparam, glong lparam);

static SciSend
scintilla_send (GtkWidget *widget)
{
    static SciSend send;
    static gboolean looked;
    if (strcmp (G_OBJECT_TYPE_NAME (widget), "ScintillaObject") != 0)
        return NULL;
    if (!looked) {
        looked = TRUE;
        GModule *self = g_module_open (NULL, 0);
        gpointer symbol = NULL;
        if (self && g_module_symbol (self, "scintilla_send_message", &symbol))
            send = (SciSend) symbol;
        MB_DEBUG ("scintilla_send_message %s", send ? "found: a replacement is one undo step" : "not exported");
    }
    return send;
}

/* The selection (or the caret) replaced by `text`, which is selected then. */
static void
replace_selection (GtkWidget *widget, AtkObject *accessible, const gchar *text)
{
    gint start = 0, end = 0;
    selected_range (ATK_TEXT (accessible), &start, &end);
    AtkEditableText *editable = ATK_EDITABLE_TEXT (accessible);
    SciSend send = scintilla_send (widget);
    if (send)
        send (widget, SCI_BEGINUNDOACTION, 0, 0);
    if (start != end)
        atk_editable_text_delete_text (editable, start, end);
    gint at = start;
    if (*text)
        atk_editable_text_insert_text (editable, text, (gint) strlen (text), &at);
    if (send)
        send (widget, SCI_ENDUNDOACTION, 0, 0);
    glong length = g_utf8_strlen (text, -1);
    if (length > 0 && !atk_text_set_selection (ATK_TEXT (accessible), 0, start, start + (gint) length))
        atk_text_add_selection (ATK_TEXT (accessible), start, start + (gint) length);
}

static void
atk_field_perform (gpointer data, const gchar *command, const gchar *text, const gchar *undo_name)
{
    GtkWidget *widget = data;
    AtkObject *accessible = accessible_of (widget);
    if (!accessible || !ATK_IS_TEXT (accessible))
        return;
    gboolean editable = (atk_field_flags (widget) & MB_FIELD_EDITABLE) != 0;
    gint start = 0, end = 0;
    selected_range (ATK_TEXT (accessible), &start, &end);
    if (g_strcmp0 (command, "replace-selection") == 0 && editable && text)
        replace_selection (widget, accessible, text);
    else if (g_strcmp0 (command, "copy") == 0 && ATK_IS_EDITABLE_TEXT (accessible) && start != end)
        atk_editable_text_copy_text (ATK_EDITABLE_TEXT (accessible), start, end);
    else if (g_strcmp0 (command, "cut") == 0 && editable && start != end)
        atk_editable_text_cut_text (ATK_EDITABLE_TEXT (accessible), start, end);
    else if (g_strcmp0 (command, "paste") == 0 && editable) {
        if (start != end)
            atk_editable_text_delete_text (ATK_EDITABLE_TEXT (accessible), start, end);
        atk_editable_text_paste_text (ATK_EDITABLE_TEXT (accessible), start);
    } else if (g_strcmp0 (command, "delete") == 0 && editable && start != end)
        atk_editable_text_delete_text (ATK_EDITABLE_TEXT (accessible), start, end);
    else if (g_strcmp0 (command, "select-all") == 0) {
        gint count = atk_text_get_character_count (ATK_TEXT (accessible));
        if (!atk_text_set_selection (ATK_TEXT (accessible), 0, 0, count))
            atk_text_add_selection (ATK_TEXT (accessible), 0, count);
    }
}

/* MenuBus undo steps are never recorded here (the app has its own). */
static void
atk_field_apply (gpointer data, const MbEdit *edits, guint n)
{
}

/* A menu was extended over the widget since this was last cleared. */
static gboolean menu_extended;

/* The Menu key pressed and released in the widget's window, as the
 * keyboard would (geany binds it at its window, Scintilla has no
 * popup-menu); TRUE when a menu showed over the widget meanwhile. */
static gboolean
press_menu_key (GtkWidget *widget, guint32 timestamp)
{
    GdkWindow *window = gtk_widget_get_window (widget);
    GdkSeat *seat = gdk_display_get_default_seat (gtk_widget_get_display (widget));
    GdkDevice *keyboard = seat ? gdk_seat_get_keyboard (seat) : NULL;
    g_autofree GdkKeymapKey *keys = NULL;
    gint n_keys = 0;
    if (!window || !keyboard ||
        !gdk_keymap_get_entries_for_keyval (gdk_keymap_get_for_display (gtk_widget_get_display (widget)), GDK_KEY_Menu,
                                            &keys, &n_keys) || n_keys == 0)
        return FALSE;
    menu_extended = FALSE;
    for (guint i = 0; i < 2; i++) {
        GdkEvent *event = gdk_event_new (i == 0 ? GDK_KEY_PRESS : GDK_KEY_RELEASE);
        event->key.window = g_object_ref (window);
        event->key.send_event = TRUE;
        event->key.time = timestamp ? timestamp : GDK_CURRENT_TIME;
        event->key.keyval = GDK_KEY_Menu;
        event->key.hardware_keycode = (guint16) keys[0].keycode;
        event->key.group = (guint8) keys[0].group;
        gdk_event_set_device (event, keyboard);
        gtk_main_do_event (event);
        gdk_event_free (event);
    }
    return menu_extended;
}

/* Asked from outside (ShowMenuForFocus): the menu the widget shows for
 * the Menu key (its popup-menu, else the key itself). */
static gboolean
atk_field_show_menu (gpointer data, guint32 timestamp)
{
    GtkWidget *widget = data;
    if (!gtk_widget_get_mapped (widget))
        return FALSE;
    gboolean shown = FALSE;
    g_weak_ref_set (&menu_target, widget);
    g_signal_emit_by_name (widget, "popup-menu", &shown);
    if (!shown && gtk_widget_has_focus (widget))
        shown = press_menu_key (widget, timestamp);
    g_weak_ref_set (&menu_target, NULL);
    return shown;
}

static const MbFieldOps atk_field_ops = { atk_field_flags,     atk_field_selection, atk_field_perform, atk_field_apply,
                                          atk_field_show_menu, gtk3_bar_show,       gtk3_bar_hide };

static void
changed (GtkWidget *widget)
{
    MbField *field = gtk3_field_of (widget);
    if (field)
        mb_field_changed (field);
}

MbField *
gtk3_atk_adopt (GtkWidget *widget)
{
    MbField *field = gtk3_field_of (widget);
    if (field)
        return field;
    field = gtk3_field_attach (widget, &atk_field_ops);
    gtk3_bar_follow (widget, atk_field_show_menu);
    AtkObject *accessible = accessible_of (widget);
    static const gchar *const signals[] = { "text-caret-moved", "text-selection-changed", "text-insert", "text-remove" };
    for (guint i = 0; i < G_N_ELEMENTS (signals); i++)
        if (g_signal_lookup (signals[i], G_OBJECT_TYPE (accessible)))
            g_signal_connect_object (accessible, signals[i], G_CALLBACK (changed), widget, G_CONNECT_SWAPPED);
    return field;
}

/* ---------- the app's menu over it ---------- */

static gboolean
forget_target (gpointer data)
{
    g_weak_ref_set (&menu_target, NULL);
    return G_SOURCE_REMOVE;
}

static void
aim (GtkWidget *widget)
{
    if (!gtk3_atk_takes_part (widget))
        return;
    g_weak_ref_set (&menu_target, widget);
    g_idle_add (forget_target, NULL);
}

static gboolean
button_hook (GSignalInvocationHint *hint, guint n, const GValue *params, gpointer data)
{
    GtkWidget *widget = g_value_get_object (&params[0]);
    GdkEventButton *event = g_value_get_boxed (&params[1]);
    if (GTK_IS_WIDGET (widget) && event && event->type == GDK_BUTTON_PRESS && event->button == 3)
        aim (widget);
    return TRUE;
}

static gboolean
key_hook (GSignalInvocationHint *hint, guint n, const GValue *params, gpointer data)
{
    GtkWidget *widget = g_value_get_object (&params[0]);
    GdkEventKey *event = g_value_get_boxed (&params[1]);
    GdkModifierType mods = event ? event->state & gtk_accelerator_get_default_mod_mask () : 0;
    if (GTK_IS_WIDGET (widget) && event &&
        (event->keyval == GDK_KEY_Menu || (event->keyval == GDK_KEY_F10 && mods == GDK_SHIFT_MASK)))
        aim (widget);
    return TRUE;
}

/* A GtkMenu shows while a menu is asked for over such a widget. */
static gboolean
show_hook (GSignalInvocationHint *hint, guint n, const GValue *params, gpointer data)
{
    GtkWidget *menu = g_value_get_object (&params[0]);
    if (!GTK_IS_MENU (menu) || g_object_get_data (G_OBJECT (menu), POPUP_KEY))
        return TRUE;
    g_autoptr (GtkWidget) widget = g_weak_ref_get (&menu_target);
    if (!widget)
        return TRUE;
    g_weak_ref_set (&menu_target, NULL);
    MbField *field = gtk3_atk_adopt (widget);
    if (!gtk_widget_has_focus (widget))
        mb_field_focused (field);
    Popup *popup = gtk3_popup_new (GTK_MENU (menu), widget);
    gtk3_menu_shown (menu, popup);
    menu_extended = TRUE;
    return TRUE;
}

void
gtk3_atk_watch (void)
{
    g_type_class_ref (GTK_TYPE_MENU);
    g_signal_add_emission_hook (g_signal_lookup ("button-press-event", GTK_TYPE_WIDGET), 0, button_hook, NULL, NULL);
    g_signal_add_emission_hook (g_signal_lookup ("key-press-event", GTK_TYPE_WIDGET), 0, key_hook, NULL, NULL);
    g_signal_add_emission_hook (g_signal_lookup ("show", GTK_TYPE_WIDGET), 0, show_hook, NULL, NULL);
}
