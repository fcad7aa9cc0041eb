/* What a Qt text widget is and does, for the core (MbFieldOps): QLineEdit,
 * QTextEdit, QPlainTextEdit and selectable QLabel; their flags, selection
 * and the commands chosen in a menu, done by the widgets' own slots, so a
 * replacement is one step of the widget's own undo stack. The pointer the
 * core hands back is a mbqt::Field, whose widget is a QPointer: a widget
 * gone meanwhile is never touched. */
#include "menubus-qt.h"

#include <QtCore/QVariant>
#include <QtCore/QCoreApplication>
#include <QtGui/QClipboard>
#include <QtGui/QContextMenuEvent>
#include <QtGui/QGuiApplication>
#include <QtGui/QTextBlock>
#include <QtGui/QTextCursor>
#include <QtGui/QTextDocument>
#include <QtGui/QTextDocumentFragment>
#include <QtWidgets/QLabel>
#include <QtWidgets/QLineEdit>
#include <QtWidgets/QPlainTextEdit>
#include <QtWidgets/QTextEdit>

namespace mbqt {

const char *const qtCommands[] = { "undo", "redo", "cut", "copy", "paste", "delete", "select-all", nullptr };

/* Longer selections go without their text: providers ask GetSelectedText. */
const int MAX_TEXT_CHARS = 65536;

QWidget *textWidgetOf(QObject *object)
{
    if (!object || !object->isWidgetType())
        return nullptr;
    auto *widget = static_cast<QWidget *>(object);
    QWidget *text = nullptr;
    if (auto *edit = qobject_cast<QLineEdit *>(widget))
        text = edit->echoMode() == QLineEdit::Normal ? widget : nullptr; /* never a password */
    else if (qobject_cast<QTextEdit *>(widget) || qobject_cast<QPlainTextEdit *>(widget))
        text = widget;
    else if (auto *label = qobject_cast<QLabel *>(widget))
        text = label->textInteractionFlags() & (Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard) ? widget : nullptr;
    else if (auto *edit = qobject_cast<QTextEdit *>(widget->parentWidget()))
        text = edit->viewport() == widget ? edit : nullptr;
    else if (auto *edit = qobject_cast<QPlainTextEdit *>(widget->parentWidget()))
        text = edit->viewport() == widget ? edit : nullptr;
    return text && !text->property("menubus-exclude").toBool() ? text : nullptr;
}

namespace {

/* A QTextEdit that takes rich text: Format ▸ Bold, Italic, Underline apply. */
bool isRichText(QWidget *widget)
{
    auto *edit = qobject_cast<QTextEdit *>(widget);
    return edit && edit->acceptRichText() && !edit->isReadOnly();
}

/* bold, italic, underline: each in effect over the whole selection (or at
 * the caret). A selection of more than 10,000 differently formatted runs
 * counts as unformatted rather than be read whole on each change. */
QStringList textAttributes(const QTextCursor &cursor)
{
    bool bold = true, italic = true, underline = true;
    auto take = [&](const QTextCharFormat &format) {
        bold = bold && format.fontWeight() > QFont::Normal;
        italic = italic && format.fontItalic();
        underline = underline && format.fontUnderline();
    };
    const int start = cursor.selectionStart(), end = cursor.selectionEnd();
    if (start == end) {
        take(cursor.charFormat());
    } else {
        int runs = 0;
        for (QTextBlock block = cursor.document()->findBlock(start); block.isValid() && block.position() < end;
             block = block.next())
            for (QTextBlock::iterator it = block.begin(); !it.atEnd(); ++it) {
                const QTextFragment fragment = it.fragment();
                if (fragment.position() + fragment.length() <= start || fragment.position() >= end)
                    continue;
                if (++runs > 10000)
                    return {};
                take(fragment.charFormat());
            }
    }
    QStringList attributes;
    if (bold)
        attributes << QStringLiteral("bold");
    if (italic)
        attributes << QStringLiteral("italic");
    if (underline)
        attributes << QStringLiteral("underline");
    return attributes;
}

/* Bold, Italic or Underline chosen: on for the whole selection unless it
 * is already, as one undo step. */
void toggleFormat(QTextEdit *edit, const QString &command)
{
    QTextCursor cursor = edit->textCursor();
    const bool on = textAttributes(cursor).contains(command);
    QTextCharFormat format;
    if (command == QLatin1String("bold"))
        format.setFontWeight(on ? QFont::Normal : QFont::Bold);
    else if (command == QLatin1String("italic"))
        format.setFontItalic(!on);
    else
        format.setFontUnderline(!on);
    if (cursor.hasSelection())
        cursor.mergeCharFormat(format);
    else
        edit->mergeCurrentCharFormat(format);
}

QWidget *widgetOf(gpointer data)
{
    return static_cast<Field *>(data)->widget.data();
}

MbFieldFlags flags(gpointer data)
{
    QWidget *widget = widgetOf(data);
    bool editable = false, content = false, ownUndo = false;
    if (auto *edit = qobject_cast<QLineEdit *>(widget)) {
        editable = !edit->isReadOnly();
        content = !edit->text().isEmpty();
        ownUndo = true;
    } else if (auto *edit = qobject_cast<QTextEdit *>(widget)) {
        editable = !edit->isReadOnly();
        content = !edit->document()->isEmpty();
        ownUndo = edit->isUndoRedoEnabled();
    } else if (auto *edit = qobject_cast<QPlainTextEdit *>(widget)) {
        editable = !edit->isReadOnly();
        content = !edit->document()->isEmpty();
        ownUndo = edit->isUndoRedoEnabled();
    } else if (auto *label = qobject_cast<QLabel *>(widget)) {
        content = !label->text().isEmpty();
    }
    int flags = 0;
    if (editable)
        flags |= MB_FIELD_EDITABLE;
    if (content)
        flags |= MB_FIELD_HAS_CONTENT;
    if (editable && ownUndo)
        flags |= MB_FIELD_OWN_UNDO;
    if (isRichText(widget))
        flags |= MB_FIELD_RICH_TEXT;
    return MbFieldFlags(flags);
}

gchar **strv(const QStringList &list)
{
    auto **out = g_new0(gchar *, list.size() + 1);
    for (int i = 0; i < list.size(); i++)
        out[i] = g_strdup(list.at(i).toUtf8().constData());
    return out;
}

void selection(gpointer data, MbSelection *out)
{
    QWidget *widget = widgetOf(data);
    out->kind = MB_SELECTION_NONE;
    int start = 0, end = 0, total = 0;
    QString text;
    if (auto *edit = qobject_cast<QLineEdit *>(widget)) {
        start = end = edit->cursorPosition();
        if (edit->hasSelectedText()) {
            start = edit->selectionStart();
            end = start + edit->selectedText().size();
        }
        total = edit->text().size();
        if (end - start <= MAX_TEXT_CHARS)
            text = edit->selectedText();
    } else if (qobject_cast<QTextEdit *>(widget) || qobject_cast<QPlainTextEdit *>(widget)) {
        auto *text_edit = qobject_cast<QTextEdit *>(widget);
        auto *plain = qobject_cast<QPlainTextEdit *>(widget);
        const QTextCursor cursor = text_edit ? text_edit->textCursor() : plain->textCursor();
        start = cursor.selectionStart();
        end = cursor.selectionEnd();
        total = cursor.document()->characterCount() - 1;
        if (end - start <= MAX_TEXT_CHARS)
            text = cursor.selection().toPlainText();
        if (isRichText(widget)) {
            out->attributes = strv(textAttributes(cursor));
        }
    } else if (auto *label = qobject_cast<QLabel *>(widget)) {
        if (!label->hasSelectedText())
            return; /* a label has no caret */
        start = label->selectionStart();
        text = label->selectedText();
        end = start + text.size();
        total = label->text().size();
    } else {
        return;
    }
    if (start == end) {
        out->kind = MB_SELECTION_CARET;
        return;
    }
    out->kind = start == 0 && end >= total ? MB_SELECTION_ALL : MB_SELECTION_RANGE;
    out->length = guint(end - start);
    if (!text.isEmpty())
        out->text = g_strdup(text.toUtf8().constData());
}

/* MenuBus's replacement is the widget's newest undo step now: Qt's Undo is
 * named after it while it stays so (menubus-qt-menu.cpp). */
void noteReplacement(Field *field, const QString &name)
{
    field->undoName = name;
    if (auto *edit = qobject_cast<QLineEdit *>(field->widget))
        field->undoText = edit->text();
    else if (auto *edit = qobject_cast<QPlainTextEdit *>(field->widget))
        field->undoRevision = edit->document()->revision();
    else if (auto *edit = qobject_cast<QTextEdit *>(field->widget))
        field->undoRevision = edit->document()->revision();
}

/* The selection replaced by `text`, which is selected then, as one edit block. */
QTextCursor replaced(QTextCursor cursor, const QString &text)
{
    const int start = cursor.selectionStart();
    cursor.beginEditBlock();
    cursor.insertText(text);
    cursor.endEditBlock();
    cursor.setPosition(start);
    cursor.setPosition(start + text.size(), QTextCursor::KeepAnchor);
    return cursor;
}

/* QPlainTextEdit and QTextEdit have the same slots but no common base with them. */
template <typename Edit>
bool performOnDocument(Edit *edit, const QString &command, const QString &text)
{
    if (command == QLatin1String("replace-selection")) {
        if (edit->isReadOnly())
            return false;
        edit->setTextCursor(replaced(edit->textCursor(), text));
        return true;
    }
    if (command == QLatin1String("cut")) edit->cut();
    else if (command == QLatin1String("copy")) edit->copy();
    else if (command == QLatin1String("paste")) edit->paste();
    else if (command == QLatin1String("delete")) edit->textCursor().removeSelectedText();
    else if (command == QLatin1String("select-all")) edit->selectAll();
    else if (command == QLatin1String("undo")) edit->undo();
    else if (command == QLatin1String("redo")) edit->redo();
    return false;
}

bool performOnLineEdit(QLineEdit *edit, const QString &command, const QString &text)
{
    if (command == QLatin1String("replace-selection")) {
        if (edit->isReadOnly())
            return false;
        const int start = edit->hasSelectedText() ? edit->selectionStart() : edit->cursorPosition();
        edit->insert(text);
        edit->setSelection(start, text.size());
        return true;
    }
    if (command == QLatin1String("cut")) edit->cut();
    else if (command == QLatin1String("copy")) edit->copy();
    else if (command == QLatin1String("paste")) edit->paste();
    else if (command == QLatin1String("delete")) edit->del();
    else if (command == QLatin1String("select-all")) edit->selectAll();
    else if (command == QLatin1String("undo")) edit->undo();
    else if (command == QLatin1String("redo")) edit->redo();
    return false;
}

bool isToggleCommand(const QString &command)
{
    return command == QLatin1String("bold") || command == QLatin1String("italic")
        || command == QLatin1String("underline");
}

/* A command chosen in a menu, by the widget's own means. */
void perform(gpointer data, const gchar *command_, const gchar *text_, const gchar *undoName)
{
    auto *field = static_cast<Field *>(data);
    QWidget *widget = field->widget;
    const QString command = QString::fromUtf8(command_), text = QString::fromUtf8(text_ ? text_ : "");
    bool replacedText = false;
    if (auto *edit = qobject_cast<QLineEdit *>(widget)) {
        replacedText = performOnLineEdit(edit, command, text);
    } else if (auto *edit = qobject_cast<QPlainTextEdit *>(widget)) {
        replacedText = performOnDocument(edit, command, text);
    } else if (auto *edit = qobject_cast<QTextEdit *>(widget)) {
        if (isToggleCommand(command) && isRichText(edit))
            toggleFormat(edit, command);
        else if (command == QLatin1String("paste-and-match-style") && isRichText(edit))
            edit->insertPlainText(QGuiApplication::clipboard()->text());
        else
            replacedText = performOnDocument(edit, command, text);
    } else if (auto *label = qobject_cast<QLabel *>(widget)) {
        if (command == QLatin1String("copy") && label->hasSelectedText())
            QGuiApplication::clipboard()->setText(label->selectedText());
        else if (command == QLatin1String("select-all"))
            label->setSelection(0, label->text().size());
    }
    if (replacedText)
        noteReplacement(field, QString::fromUtf8(undoName && *undoName ? undoName : ""));
}

/* MenuBus undo steps are never recorded for Qt's widgets (each has its own
 * undo stack): nothing to apply. */
void apply(gpointer, const MbEdit *, guint)
{
}

/* Asked from outside (ShowMenuForFocus): the widget's own context menu at
 * its caret, as the Menu key opens it, so MenuBus's items join it as in
 * any edit menu. Posted, not sent: Qt's widgets show their menu with
 * exec(), which must not run inside the D-Bus call. */
gboolean showMenu(gpointer data, guint32)
{
    QWidget *widget = static_cast<Field *>(data)->widget;
    if (!widget || !widget->isVisible())
        return FALSE;
    const QPoint at = widget->inputMethodQuery(Qt::ImCursorRectangle).toRect().center();
    QCoreApplication::postEvent(widget, new QContextMenuEvent(QContextMenuEvent::Keyboard, at, widget->mapToGlobal(at)));
    return TRUE;
}

} // namespace

const MbFieldOps fieldOps = { flags, selection, perform, apply, showMenu, showBar, hideBar };

bool isEditable(QWidget *widget)
{
    Field probe;
    probe.widget = widget;
    return (textWidgetOf(widget) ? flags : accessibleFieldOps.flags)(&probe) & MB_FIELD_EDITABLE;
}

} // namespace mbqt
