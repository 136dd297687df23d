import Foundation
import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// The open connections of one listener, against its cap.
final class ConnectionCount: @unchecked Sendable {
    private let lock = NSLock()
    private var open = 0
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// Counts one more connection; false (and nothing counted) when the listener is at its cap.
    func tryOpen() -> Bool {
        lock.withLock {
            guard open < limit else { return false }
            open += 1
            return true
        }
    }

    func close() {
        lock.withLock { open -= 1 }
    }

    var current: Int { lock.withLock { open } }
}

/// Holds one connection to its listener's `ListenerLimits`: refuses it when the listener is full, and closes it
/// when a request that has begun is not read whole within the read timeout.
///
/// It sits after HTTP decoding (where Hummingbird adds extra handlers), so it sees where requests end; the moment a
/// request begins is its first byte, which only a handler in front of the decoder sees. It therefore puts a
/// `FirstByteWatch` at the front of the pipeline when it is added.
final class ConnectionGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let count: ConnectionCount
    private let readTimeout: TimeAmount
    private var counted = false
    private var requestStarted = false
    private var deadline: Scheduled<Void>?

    init(count: ConnectionCount, readTimeout: Duration) {
        self.count = count
        self.readTimeout = .nanoseconds(Int64(readTimeout.seconds * 1e9))
    }

    func handlerAdded(context: ChannelHandlerContext) {
        try? context.pipeline.syncOperations.addHandler(FirstByteWatch(guard: self), position: .first)
        if context.channel.isActive { admit(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        admit(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        if counted {
            counted = false
            count.close()
        }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data) {
            // The request is read whole; the next one's clock starts at its own first byte.
            requestStarted = false
            deadline?.cancel()
            deadline = nil
        }
        context.fireChannelRead(data)
    }

    /// Counts the connection once it is active, or closes it when the listener is full.
    private func admit(context: ChannelHandlerContext) {
        guard !counted else { return }
        if count.tryOpen() {
            counted = true
        } else {
            context.close(promise: nil)
        }
    }

    /// Bytes arrived: when no request was under way, one begins now and must be read within the timeout.
    fileprivate func bytesArrived(on channel: any Channel) {
        guard !requestStarted else { return }
        requestStarted = true
        deadline = channel.eventLoop.assumeIsolated().scheduleTask(in: readTimeout) {
            channel.close(promise: nil)
        }
    }
}

/// Tells the `ConnectionGuard` behind it when bytes arrive; passes everything on unchanged.
final class FirstByteWatch: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private weak var connectionGuard: ConnectionGuard?

    init(guard connectionGuard: ConnectionGuard) {
        self.connectionGuard = connectionGuard
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        connectionGuard?.bytesArrived(on: context.channel)
        context.fireChannelRead(data)
    }
}
