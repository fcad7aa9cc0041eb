/* A key no widget of the window took (the app's shortcuts and the focused
 * widget come first: Qt sends a key press on to the window only when they
 * let it pass) is handed to the core as a GTK accelerator, which chooses
 * the item of the field's edit menu whose shortcut it is (a provider's
 * `Shortcut=`). Keys with neither Control, Alt nor Meta (Super) are
 * typing: never looked at. */
#include "menubus-qt.h"

#include <QtGui/QKeyEvent>

namespace mbqt {

namespace {

/* GDK's names of the keys Qt names otherwise; letters, digits and F1–F35
 * are spelled out below. */
const struct {
    int key;
    const char *name;
} keyNames[] = {
    { Qt::Key_Space, "space" },         { Qt::Key_Period, "period" },       { Qt::Key_Comma, "comma" },
    { Qt::Key_Slash, "slash" },         { Qt::Key_Backslash, "backslash" }, { Qt::Key_Minus, "minus" },
    { Qt::Key_Plus, "plus" },           { Qt::Key_Equal, "equal" },         { Qt::Key_Semicolon, "semicolon" },
    { Qt::Key_Apostrophe, "apostrophe" }, { Qt::Key_QuoteLeft, "grave" },   { Qt::Key_BracketLeft, "bracketleft" },
    { Qt::Key_BracketRight, "bracketright" }, { Qt::Key_Return, "Return" }, { Qt::Key_Enter, "KP_Enter" },
    { Qt::Key_Tab, "Tab" },             { Qt::Key_Backspace, "BackSpace" }, { Qt::Key_Delete, "Delete" },
    { Qt::Key_Insert, "Insert" },       { Qt::Key_Home, "Home" },           { Qt::Key_End, "End" },
    { Qt::Key_PageUp, "Page_Up" },      { Qt::Key_PageDown, "Page_Down" },  { Qt::Key_Left, "Left" },
    { Qt::Key_Right, "Right" },         { Qt::Key_Up, "Up" },               { Qt::Key_Down, "Down" },
    { Qt::Key_Escape, "Escape" },
};

} // namespace

QByteArray gtkAccelerator(const QKeyEvent *event)
{
    const Qt::KeyboardModifiers mods = event->modifiers();
    if (!(mods & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier)))
        return QByteArray();
    const int key = event->key();
    QByteArray name;
    if (key >= Qt::Key_A && key <= Qt::Key_Z)
        name = QByteArray(1, char('a' + (key - Qt::Key_A)));
    else if (key >= Qt::Key_0 && key <= Qt::Key_9)
        name = QByteArray(1, char('0' + (key - Qt::Key_0)));
    else if (key >= Qt::Key_F1 && key <= Qt::Key_F35)
        name = "F" + QByteArray::number(key - Qt::Key_F1 + 1);
    for (const auto &known : keyNames)
        if (name.isEmpty() && known.key == key)
            name = known.name;
    if (name.isEmpty())
        return QByteArray();
    QByteArray accelerator;
    if (mods & Qt::ControlModifier)
        accelerator += "<Control>";
    if (mods & Qt::ShiftModifier)
        accelerator += "<Shift>";
    if (mods & Qt::AltModifier)
        accelerator += "<Alt>";
    if (mods & Qt::MetaModifier)
        accelerator += "<Super>";
    return accelerator + name;
}

} // namespace mbqt
