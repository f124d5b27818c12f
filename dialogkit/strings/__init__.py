"""Small text helpers every layer shares, one per job: CJK detection, redaction, did-you-mean,
placeholders and the input cap. They import nothing of dialogkit but ``errors``."""
