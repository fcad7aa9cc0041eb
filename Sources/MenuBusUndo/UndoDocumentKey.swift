import MenuBusModel

/// What a document is known by: the app id that owns it and the app's
/// document id. Both are checked here (non-empty, within
/// `Limits.maxAppIdBytes` / `maxDocumentIdBytes`); nothing else about
/// them is assumed, and the journal's file name never contains them raw.
///
/// Documents belong to the app id, not to a connection: every instance
/// that registers the id sees the same history
/// (docs/DESIGN.md, "Several instances of one app").
package struct UndoDocumentKey: Hashable, Sendable, CustomStringConvertible {
    package let appId: String
    package let documentId: String

    package init(appId: String, documentId: String) throws(UndoError) {
        guard !appId.isEmpty else {
            throw UndoError(kind: .invalidArgument, field: "appId", message: "the app id is empty")
        }
        guard !documentId.isEmpty else {
            throw UndoError(kind: .invalidArgument, field: "documentId", message: "the document id is empty")
        }
        let appBytes = appId.utf8.count
        guard appBytes <= Limits.maxAppIdBytes else {
            throw .limit(.appIdBytes, field: "appId", value: appBytes, limit: Limits.maxAppIdBytes)
        }
        let documentBytes = documentId.utf8.count
        guard documentBytes <= UndoLimits.maxDocumentIdBytes else {
            throw .limit(.documentIdBytes, field: "documentId", value: documentBytes, limit: UndoLimits.maxDocumentIdBytes)
        }
        self.appId = appId
        self.documentId = documentId
    }

    /// For logs: the app id and the document id's length, not its text.
    package var description: String { "\(appId) document of \(documentId.utf8.count) bytes" }
}
