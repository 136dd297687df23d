extension StatisticsTexts {
    public static let german = StatisticsTexts(
        navigation: "Statistik",
        title: "Statistik",
        intro: "Tägliche Zahlen der Dienste, je Tag in UTC. Keine Zahl betrifft eine einzelne Person oder ein einzelnes Telefon.",
        period: "Zeitraum",
        lastDays: "Letzte {days} Tage",
        show: "Anzeigen",
        download: "Die Zahlen dieses Zeitraums herunterladen:",
        downloadCSV: "CSV",
        downloadJSON: "JSON",
        summary: "{total} insgesamt, höchstens {max} an einem Tag",
        byBreakdown: "Nach Teilen",
        dailyValues: "Tageswerte",
        day: "Tag",
        count: "Anzahl",
        total: "Summe",
        nothingCounted: "In diesem Zeitraum wurde nichts gezählt.",
        sourceUnavailable: "Die Statistik von {service} konnte nicht gelesen werden. Bitte später erneut versuchen.",
        notConfigured: "Das Portal hat kein Statistik-Token (STATISTICS_API_TOKEN). Bitte wenden Sie sich an den Betrieb.",
        finishedDaysOnly: "Der Zeitraum endet gestern: Was Apps tun, wird nur für abgeschlossene Tage gezählt.",
        figures: [
            "teletans_issued": "Ausgegebene teleTANs",
            "teletans_issued_by_officer": "Ausgegebene teleTANs je Mitarbeiter:in",
            "registrations": "Von Apps registrierte Tests",
            "tans_issued": "An Apps ausgegebene TANs",
            "tans_redeemed": "Durch Uploads eingelöste TANs",
            "lab_results_received": "Empfangene Laborergebnisse",
            "keys_submitted": "Übermittelte Schlüssel",
            "keys_published": "Veröffentlichte Schlüssel",
        ],
        services: ["verification": "Verifikation", "testresult": "Testergebnisse", "submission": "Übermittlung"]
    )
}
