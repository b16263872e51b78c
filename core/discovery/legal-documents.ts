/** A legal text served at /v1/legal/{name}: Markdown, from the operator's file or a marked placeholder. */
export interface LegalDocument {
  markdown: string
  /** True when the operator has not provided the text (LEGAL_TERMS_FILE / LEGAL_PRIVACY_FILE). */
  placeholder: boolean
}

/** One stored data category, as the privacy placeholder lists it (from the retention registry). */
export interface StoredCategoryNote {
  category: string
  description: string
  retention_days: number
  legal_note: string
}

const BANNER =
  '> **PLACEHOLDER.** The operator of this deployment has not provided this text yet (set `{variable}` to a Markdown file). It describes what the software does and is not a legal agreement.'

/** Terms of service: the operator's text, else a marked placeholder describing how the service bills. */
export function termsDocument(text: string | undefined, serviceName: string): LegalDocument {
  if (text !== undefined) return { markdown: text, placeholder: false }
  return {
    placeholder: true,
    markdown: [
      `# Terms of service: ${serviceName}`,
      '',
      BANNER.replace('{variable}', 'LEGAL_TERMS_FILE'),
      '',
      '- Results are automated checks against public registers and lists; a sanctions match is not a determination, and a score is not advice.',
      '- Paid calls are charged only when they answer successfully (2xx); failed calls are never charged.',
      '- Prepaid balances are debited at the listed account price per call; x402 payments are per call and final once settled.',
      '- Sources that did not answer are reported `unavailable`, never as clean.',
      '- Operator, governing law, liability and contact: [to be provided by the operator].',
      '',
    ].join('\n'),
  }
}

/**
 * Privacy notice: the operator's text, else a marked placeholder that lists what the software
 * stores and for how long (from the retention registry, so it stays true).
 */
export function privacyDocument(
  text: string | undefined,
  serviceName: string,
  categories: readonly StoredCategoryNote[],
): LegalDocument {
  if (text !== undefined) return { markdown: text, placeholder: false }
  return {
    placeholder: true,
    markdown: [
      `# Privacy notice: ${serviceName}`,
      '',
      BANNER.replace('{variable}', 'LEGAL_PRIVACY_FILE'),
      '',
      'What this deployment stores, and for how long (also at `GET /v1/data/inventory`, the GDPR Art. 30 register):',
      '',
      '| Category | What | Retention | Why |',
      '| --- | --- | --- | --- |',
      ...categories.map(
        (category) =>
          `| ${category.category} | ${category.description} | ${category.retention_days} days | ${category.legal_note} |`,
      ),
      '',
      '- API keys are stored as SHA-256 hashes; the key itself is never stored. The email given at key creation is kept with the key.',
      '- Names, registration numbers, domains and wallet addresses sent for checks are sent to the sources listed at `GET /v1/providers` and stored with the check for the retention above.',
      '- Controller, contact, legal bases and data subject rights: [to be provided by the operator].',
      '',
    ].join('\n'),
  }
}
