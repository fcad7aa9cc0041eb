/* menubus-gtk4: MenuBus menus in a GTK 4 app's text widgets, one call a widget.
 *
 * GTK 4 loads no modules, so an app opts in:
 *
 *     #include <menubus-gtk4.h>
 *     menubus_gtk4_attach (text_view);   // a GtkTextView, GtkEntry or GtkText
 *
 * and builds with `pkg-config --cflags --libs menubus-gtk4`.
 *
 * What an attached widget does
 * ----------------------------
 * - Focused, the app registers with menubusd (its GApplication id, else its
 *   desktop-file id, else its program name) and the widget is published as
 *   a text context: editable or not, whether it has text, the commands the
 *   library can do. Its selection and the clipboard's formats follow,
 *   coalesced, with at most one call in flight.
 * - Its `extra-menu` becomes a GMenu of the library's: the app's own extra
 *   menu (if it had one when attached) as the first section, then one
 *   section of MenuBus's: a local GMenu built from a presented edit menu's
 *   items (GetLayout, then LayoutChanged: the daemon keeps a presented menu
 *   in step with the selection and the clipboard, deferred items included),
 *   with a GSimpleActionGroup inserted on the widget under the prefix
 *   "menubus". Each change is applied in place, only to the items that
 *   differ, so GTK 4 keeps the popover and the widgets of every other item
 *   (a submenu that stays is never taken out and put back: GTK 4.8 would
 *   add its page to the popover again each time). The section joins the
 *   extra menu with its first items and stays, so the text widget builds
 *   its popover once, as without MenuBus.
 * - The menu is presented with `omit-commands` cut, copy, paste, delete and
 *   select-all: GTK 4 shows those itself, so nothing is doubled.
 * - Choosing an item activates it in the live presentation (or, between
 *   two presentations, chooses it as from the menu for the selection then);
 *   what comes back (Make Uppercase's replace-selection, a standard
 *   command) is applied to the widget, a replacement as one user action.
 *
 * When the menu is presented and renewed
 * --------------------------------------
 * - When the widget takes the focus (or when attached while focused), if
 *   none of its presentations is live or being asked for. PresentMenu is
 *   asynchronous: nothing on the main loop waits for menubusd.
 * - Again at once when menubusd closes it while the widget has the focus
 *   (an item was chosen, or someone dismissed it); otherwise at the next
 *   focus. The items of the one closed stay until the next one's come.
 * - When menubusd answers NothingToShow (a caret and nothing to offer once
 *   GTK's own commands are left out), again once the main loop is idle
 *   after the selection's kind or the field's flags change.
 * - When menubusd goes, the MenuBus section is taken out of the extra menu
 *   at once: GTK 4's menu is then exactly its own (plus the app's extra
 *   menu), with nothing behind it that could wait. When menubusd comes
 *   back (a restart, D-Bus activation) the focused widget presents again.
 * - The widget's extra-menu property stays the library's GMenu from
 *   attach to detach, so a context menu that is open never has its model
 *   swapped under it.
 *
 * Undo: GTK 4's GtkTextView and GtkText keep their own undo (Ctrl+Z), so
 * the library adds no MenuBus undo steps and the menu shows no MenuBus
 * Undo. A replacement is one GtkTextBuffer user action (one step of the
 * text view's undo); in a GtkText/GtkEntry it is the delete and insert
 * GTK's own history records for them.
 *
 * Turned off: MENUBUS_DISABLE=1 in the environment, or the program listed
 * under [Exclude] Apps= in menubus/integration.conf of the user's or the
 * system's config folders; then menubus_gtk4_attach returns FALSE and
 * changes nothing. Nothing is printed on stderr (G_MESSAGES_DEBUG=MenuBus
 * shows what the library does).
 *
 * Call both functions from the main thread.
 */
#ifndef MENUBUS_GTK4_H
#define MENUBUS_GTK4_H

#include <gtk/gtk.h>

G_BEGIN_DECLS

/**
 * menubus_gtk4_attach:
 * @widget: a #GtkTextView, a #GtkEntry (its #GtkText takes part) or a
 *   #GtkText; never a password field
 *
 * Lets @widget take part in MenuBus as described above. Attaching a
 * widget that is attached already does nothing and returns TRUE. Set the
 * widget's own extra menu, if any, before this call: the library keeps it
 * as the first section of the menu it installs. The attachment ends with
 * menubus_gtk4_detach() or when the widget is finalized.
 *
 * Returns: TRUE when @widget takes part; FALSE for another kind of widget,
 *   a password field, or when MenuBus is turned off for this program.
 */
gboolean menubus_gtk4_attach (GtkWidget *widget);

/**
 * menubus_gtk4_detach:
 * @widget: a widget given to menubus_gtk4_attach()
 *
 * Ends the attachment: the presented menu is dismissed, the context is
 * removed from menubusd, and the widget's extra menu is the app's own
 * again. Does nothing for a widget that is not attached.
 */
void menubus_gtk4_detach (GtkWidget *widget);

G_END_DECLS

#endif /* MENUBUS_GTK4_H */
