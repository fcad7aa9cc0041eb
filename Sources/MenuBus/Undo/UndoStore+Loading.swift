extension UndoStore {
    /// Loads every journal in the directory (creating the directory if
    /// needed): the documents found, and findings for torn, damaged or
    /// unreadable files, each repaired as `UndoLoadFinding.Kind` says.
    /// Call once at start, before `perform`; later calls load nothing more.
    /// When the directory cannot be made or listed, nothing is loaded, the
    /// finding says why, and the next `loadAll()` or `perform` tries again
    /// (`perform` refuses with a storage error until it succeeds).
    func loadAll() -> UndoLoadReport {
        var report = UndoLoadReport()
        guard !isLoaded else {
            report.documents = documents.keys.sorted { ($0.appId, $0.documentId) < ($1.appId, $1.documentId) }
            return report
        }
        let names: [String]
        do {
            try prepareDirectoryForLoading()
            names = try UndoFiles.list(directory)
        } catch {
            report.findings.append(UndoLoadFinding(fileName: "", key: nil, recordsLoaded: 0, kind: .failed(error)))
            return report
        }
        markLoaded()
        reserve(names)
        for name in names.sorted() {
            let path = directory + "/" + name
            if name.hasSuffix(UndoFileName.temporarySuffix) {
                try? UndoFiles.remove(path)
                release(name)
                continue
            }
            guard name.hasSuffix(UndoFileName.suffix) else { continue }
            if let finding = load(name) { report.findings.append(finding) }
        }
        report.documents = documents.keys.sorted { ($0.appId, $0.documentId) < ($1.appId, $1.documentId) }
        return report
    }

    /// Loads one journal file; returns what was wrong with it, if anything.
    private func load(_ name: String) -> UndoLoadFinding? {
        let path = directory + "/" + name
        let bytes: [UInt8]
        do {
            bytes = try UndoFiles.read(path)
        } catch {
            return UndoLoadFinding(fileName: name, key: nil, recordsLoaded: 0, kind: .failed(error))
        }
        let replay = UndoJournal.replay(bytes, limits: limits)
        var finding = UndoLoadFinding(fileName: name, key: replay.key, recordsLoaded: replay.records, kind: .discarded)
        guard let key = replay.key else {
            if case .damaged(_, let reason) = replay.ending {
                finding.kind = .unreadable(reason: reason)
            } else {
                try? UndoFiles.remove(path)
                release(name)
            }
            return finding
        }
        guard documents[key] == nil else {
            finding.kind = .duplicate
            return finding
        }
        let journal = UndoJournal(directory: directory, fileName: name, size: replay.goodLength)
        let document = UndoDocument(key: key, stack: replay.stack, lastTouched: replay.lastTouched,
                                    journaledTouch: replay.lastTouched, journal: journal)
        adopt(document)
        switch replay.ending {
        case .complete:
            return nil
        case .torn:
            finding.kind = .tornTail(bytesCut: bytes.count - replay.goodLength)
            do {
                try UndoFiles.truncate(path: path, to: replay.goodLength)
            } catch {
                journal.markBroken()
                finding.kind = .failed(error)
            }
        case let .damaged(offset, reason):
            finding.kind = .damaged(offset: offset, bytesNotLoaded: bytes.count - offset, reason: reason)
            do {
                try UndoFiles.link(path, to: UndoJournal.damagedPath(of: path))
                reserve([name + ".damaged"])
            } catch {
                // Keeping a copy is a courtesy; the journal is repaired regardless.
            }
            do {
                try journal.rewrite(document)
            } catch {
                journal.markBroken()
            }
        }
        return finding
    }
}
