/// Files and links in a selection: `text/uri-list` (RFC 2483) for providers.
extension Selection {
    package static let uriListType = "text/uri-list"
    /// URIs one selection may carry.
    package static let maxURIs = 1024

    /// The context's content types, and `text/uri-list` when the selection
    /// carries URIs, for matching providers.
    func offeredContentTypes(_ contextTypes: [ContentType]) -> [ContentType] {
        guard !uris.isEmpty else { return contextTypes }
        let uriList = ContentType(Selection.uriListType)
        return contextTypes.contains(uriList) ? contextTypes : contextTypes + [uriList]
    }

    /// The selection as a `text/uri-list` body (CRLF-terminated lines) when it
    /// carries URIs and `provider` takes that type; nil otherwise.
    package func uriList(for provider: ProviderInfo) -> String? {
        guard !uris.isEmpty else { return nil }
        let uriList = ContentType(Selection.uriListType)
        guard provider.contentTypes.contains(where: { ContentType($0).accepts(uriList) }) else { return nil }
        return uris.map { $0 + "\r\n" }.joined()
    }

    /// Each URI has a scheme and no line breaks; all of them together fit
    /// the bound on selected text.
    func validateURIs(field: String) throws(ModelError) {
        guard !uris.isEmpty else { return }
        if uris.count > Selection.maxURIs {
            throw .limit(field, "at most \(Selection.maxURIs) URIs")
        }
        var total = 0
        for (index, uri) in uris.enumerated() {
            total += uri.utf8.count + 2
            let scheme = uri.prefix { $0 != ":" }
            guard scheme.count < uri.count, let first = scheme.first, first.isASCII, first.isLetter,
                  scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+.-".contains($0)) }) else {
                throw .invalid("\(field)[\(index)]", "\(ModelError.quoted(uri)) is not a URI (no scheme)")
            }
            guard !uri.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 32 }) else {
                throw .invalid("\(field)[\(index)]", "a URI has no spaces or line breaks")
            }
        }
        if total > Limits.maxSelectionTextBytes {
            throw .limit(field, "the URIs exceed \(Limits.maxSelectionTextBytes) bytes")
        }
    }
}
