import ExposureBuildInfo
import Foundation
import Logging
import Metrics
import Prometheus

/// Process-wide logging and metrics, set up once however many services the process runs.
public enum Observability {
    /// The registry that `/metrics` renders.
    public static let registry = PrometheusCollectorRegistry()

    private static let bootstrapOnce: Void = {
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        // What is running, in the usual form of a build-information metric: always 1, the facts in its labels, so
        // that a dashboard can show which commit each replica runs (docs/operations.md, "Metrics").
        registry.makeGauge(
            descriptor: MetricNameDescriptor(
                metricName: "exposure_build", unitName: "info", helpText: "The running build: always 1, its version and commit in the labels."
            ),
            labels: [("version", BuildInfo.version), ("commit", BuildInfo.commit)]
        ).set(to: 1)
    }()

    private static let loggingLock = NSLock()
    nonisolated(unsafe) private static var loggingBootstrapped = false

    /// Installs the Prometheus metrics factory (idempotent).
    public static func bootstrapMetrics() {
        _ = bootstrapOnce
    }

    /// Installs the structured log handler (idempotent). `format` is `logfmt` (default) or `json`.
    public static func bootstrapLogging(level: Logger.Level, format: StructuredLogHandler.Format) {
        loggingLock.withLock {
            guard !loggingBootstrapped else { return }
            loggingBootstrapped = true
            LoggingSystem.bootstrap { label in
                var handler = StructuredLogHandler(label: label, format: format)
                handler.logLevel = level
                return handler
            }
        }
    }

    /// The metrics in Prometheus text format.
    public static func renderMetrics() -> [UInt8] {
        registry.emitToBuffer()
    }
}
