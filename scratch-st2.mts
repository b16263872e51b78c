import { transliterate } from 'transliteration'
import { nameTokens } from '/work/wt-arabic2/core/sanctions/name-normaliser.ts'
console.log(nameTokens(transliterate('عبد الحی عظیم عبد القادر')), nameTokens('Abdul Hai Hazem'))
