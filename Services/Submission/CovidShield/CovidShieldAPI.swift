// The server stubs of openapi/covidshield.yaml, generated at build time (swift-openapi-generator). A target of its own
// because one target takes one OpenAPI document; the handlers that implement `APIProtocol` live in the Submission
// target (`Sources/API/CovidShield/`), beside the CWA upload they share the key store with.
