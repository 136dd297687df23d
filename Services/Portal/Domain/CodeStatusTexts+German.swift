extension CodeStatusTexts {
    public static let german = CodeStatusTexts(
        navigation: "Meine Codes",
        title: "Ihre Codes der letzten 7 Tage",
        intro: "Ob die teleTANs und Codes, die Sie herausgegeben haben, genutzt wurden. Die Codes selbst werden nie wieder gezeigt: Sie finden einen an seiner Art und der Zeit der Ausgabe. Einen Code, den Sie der falschen Person vorgelesen haben, können Sie ungültig machen.",
        authorityTitle: "Codes Ihrer Gesundheitsbehörde der letzten 7 Tage",
        authorityIntro: "Die teleTANs und Codes aller Mitarbeitenden Ihrer Gesundheitsbehörde, und ob sie genutzt wurden.",
        showMine: "Nur meine",
        showAuthority: "Alle meiner Behörde",
        kindHeading: "Art",
        issuedHeading: "Ausgegeben",
        validUntilHeading: "Gültig bis",
        statusHeading: "Status",
        officerHeading: "Mitarbeiter:in",
        actionHeading: "Aktion",
        unused: "Ungenutzt",
        usedAt: "Genutzt, {hour}",
        expired: "Abgelaufen",
        expireButton: "Ungültig machen",
        expiredNotice: "Der Code ist ungültig: Er kann nicht mehr genutzt werden.",
        notLive: "Der Code war schon genutzt oder abgelaufen; nichts wurde geändert.",
        unknownCode: "Diesen Code dürfen Sie nicht sehen.",
        nothing: "Keine teleTANs oder Codes in den letzten 7 Tagen.",
        noRole: "Ihr Konto hat keine Rolle, die teleTANs oder Codes erzeugt, und hat daher keine zu prüfen. Bitten Sie Ihre Vorgesetzte oder Ihren Vorgesetzten um die nötige Rolle.",
        supervisorsOnly: "Nur Vorgesetzte sehen die Codes aller Mitarbeitenden ihrer Behörde. Ihre eigenen Codes finden Sie unter Meine Codes.",
        kinds: [
            "TEST": "TEST-teleTAN",
            "EVENT": "EVENT-teleTAN",
            "COVIDSHIELD": "CovidShield-Code",
            "PROTEGO": "ProteGO-Safe-PIN",
        ]
    )
}
