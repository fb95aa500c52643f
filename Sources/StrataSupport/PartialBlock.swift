/// The bytes of a block-wise hash that do not yet fill a block, kept between the pieces it is given, so that
/// ``feed(_:blocks:)`` hands the hash whole blocks only.
///
/// `Storage` is a tuple of words exactly one block long; its size is the block size.
struct PartialBlock<Storage> {
    /// The held bytes, at the start of the storage; the rest is left as it was.
    private(set) var storage: Storage
    /// How many bytes are held: always fewer than a block.
    private(set) var count = 0

    /// Starts empty.
    ///
    /// - Parameter zero: The storage's zero value.
    init(zero: Storage) {
        storage = zero
    }

    /// Takes bytes: completes a held block first, then hands every whole block to `blocks` (a pointer and a
    /// number of blocks, read unaligned), and keeps what is left.
    @inline(__always)
    mutating func feed(_ bytes: UnsafeRawBufferPointer, blocks: (UnsafeRawPointer, Int) -> Void) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        let blockSize = MemoryLayout<Storage>.size
        let total = bytes.count
        var offset = 0
        if count > 0 {
            let take = min(blockSize - count, total)
            let held = count
            withUnsafeMutableBytes(of: &storage) { raw in
                raw.baseAddress?.advanced(by: held).copyMemory(from: base, byteCount: take)
            }
            count += take
            offset = take
            guard count == blockSize else { return }
            let block = storage
            withUnsafeBytes(of: block) { raw in
                if let pointer = raw.baseAddress { blocks(pointer, 1) }
            }
            count = 0
        }
        let whole = (total - offset) / blockSize
        if whole > 0 {
            blocks(base + offset, whole)
            offset += whole * blockSize
        }
        if offset < total {
            let rest = total - offset
            withUnsafeMutableBytes(of: &storage) { raw in
                raw.baseAddress?.copyMemory(from: base + offset, byteCount: rest)
            }
            count = rest
        }
    }
}

extension PartialBlock: Sendable where Storage: Sendable {}
