import MenuBusModel

extension UndoResidency {
    /// What reading one journal gave.
    struct LoadResult {
        /// The document now in memory, if one was.
        var key: UndoDocumentKey?
        var finding: UndoLoadFinding?
        /// The file could not be read at all; nothing changed.
        var readError: UndoFileError?
    }

    /// Loads one journal file; returns what was wrong with it, if anything.
    /// `counted`: the document was dropped from memory and is read again.
    func load(_ name: String, counted: Bool) -> LoadResult {
        let path = directory + "/" + name
        let bytes: [UInt8]
        journalsRead += 1
        do {
            bytes = try UndoFiles.read(path)
        } catch {
            return LoadResult(key: nil, finding: UndoLoadFinding(fileName: name, key: nil, recordsLoaded: 0, kind: .failed(error)),
                              readError: error)
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
            return LoadResult(key: nil, finding: finding)
        }
        guard documents[key] == nil, counted || evicted[key] == nil else {
            finding.kind = .duplicate
            return LoadResult(key: nil, finding: finding)
        }
        let journal = UndoJournal(directory: directory, fileName: name, size: replay.goodLength)
        let document = UndoDocument(key: key, stack: replay.stack, lastTouched: replay.lastTouched,
                                    journaledTouch: replay.lastTouched, journal: journal)
        adopt(document, counted: counted)
        switch replay.ending {
        case .complete:
            return LoadResult(key: key)
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
        return LoadResult(key: key, finding: finding)
    }
}
