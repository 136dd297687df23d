import Hummingbird
import Logging

extension HTTPListener {
    /// A plain HTTP listener serving `router` with `ClientAddress.current` set for each request, for limits per
    /// source. Built like `init(name:address:router:serviceName:logger:)`, with the router behind a
    /// `ClientAddressResponder`.
    public init(
        name: String, address: ListenerAddress, router: Router<BasicRequestContext>, serviceName: String, logger: Logger,
        clientAddresses: ClientAddressResolver
    ) {
        let boundPort = BoundPort()
        self.name = name
        self.address = address
        self.boundPort = boundPort
        var listenerLogger = logger
        listenerLogger[metadataKey: "listener"] = "\(name)"
        let readyLogger = listenerLogger
        self.service = Application(
            responder: ClientAddressResponder(inner: router.buildResponder(), resolver: clientAddresses),
            configuration: .init(address: .hostname(address.host, port: address.port), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? address.port
                boundPort.set(port)
                readyLogger.info("listening", metadata: ["service": "\(serviceName)", "port": "\(port)"])
            },
            logger: listenerLogger
        )
    }
}
