// Every recognizer, one module each. Order matters only for exact ties in overlap resolution
// (same checksum status, same span): earlier wins.
import type { Recognizer } from '../types.js';
import { addressRecognizer } from './address.js';
import { beNationalNumberRecognizer } from './be-national-number.js';
import { bsnEightDigitRecognizer, bsnHyphenatedRecognizer, bsnRecognizer } from './bsn.js';
import { cardRecognizer } from './card.js';
import { dateOfBirthRecognizer } from './date-of-birth.js';
import { emailRecognizer } from './email.js';
import { spelledEmailRecognizer } from './email-spelled.js';
import { headerNameRecognizer } from './header-name.js';
import { dutchDocumentNumberRecognizer, foreignDocumentNumberRecognizer, ukDrivingLicenceRecognizer } from './identity-document.js';
import { ibanRecognizer } from './iban.js';
import { ipRecognizer } from './ip.js';
import { nhsNumberCompactRecognizer, nhsNumberRecognizer } from './nhs-number.js';
import { licencePlateRecognizer } from './licence-plate.js';
import { mentionRecognizer } from './mention.js';
import { passengerNameRecognizer } from './passenger-name.js';
import { ninoLowerCaseRecognizer, ninoRecognizer } from './nino.js';
import { nirRecognizer } from './nir.js';
import { codiceFiscaleRecognizer, dniRecognizer, peselRecognizer } from './national-ids-es-it-pl.js';
import { personRecognizer } from './person.js';
import { phoneRecognizer } from './phone.js';
import { nifRecognizer } from './pt.js';
import { idNumberRecognizer, postcodeRecognizer, referenceRecognizer, sortCodeAccountRecognizer } from './reference.js';
import { steuerIdRecognizer } from './steuer-id.js';
import { streetRecognizer } from './street.js';

export {
  addressRecognizer,
  beNationalNumberRecognizer,
  bsnEightDigitRecognizer,
  bsnHyphenatedRecognizer,
  bsnRecognizer,
  cardRecognizer,
  codiceFiscaleRecognizer,
  dateOfBirthRecognizer,
  dniRecognizer,
  dutchDocumentNumberRecognizer,
  emailRecognizer,
  foreignDocumentNumberRecognizer,
  headerNameRecognizer,
  ibanRecognizer,
  idNumberRecognizer,
  ipRecognizer,
  licencePlateRecognizer,
  mentionRecognizer,
  nhsNumberCompactRecognizer,
  nhsNumberRecognizer,
  nifRecognizer,
  ninoLowerCaseRecognizer,
  ninoRecognizer,
  nirRecognizer,
  passengerNameRecognizer,
  personRecognizer,
  peselRecognizer,
  phoneRecognizer,
  postcodeRecognizer,
  referenceRecognizer,
  sortCodeAccountRecognizer,
  spelledEmailRecognizer,
  steuerIdRecognizer,
  streetRecognizer,
  ukDrivingLicenceRecognizer,
};

export const RECOGNIZERS: readonly Recognizer[] = [
  emailRecognizer,
  ibanRecognizer,
  cardRecognizer,
  // Before the BSN: nine digits after "NIF" that pass both checks are the NIF they are labelled.
  nifRecognizer,
  bsnRecognizer,
  bsnHyphenatedRecognizer,
  bsnEightDigitRecognizer,
  nirRecognizer,
  steuerIdRecognizer,
  beNationalNumberRecognizer,
  ninoRecognizer,
  ninoLowerCaseRecognizer,
  nhsNumberRecognizer,
  nhsNumberCompactRecognizer,
  // After the ids of the four languages: an 11-digit number that passes a Steuer-ID's or a Belgian
  // national number's checks as well as a PESEL's is typed as theirs.
  dniRecognizer,
  codiceFiscaleRecognizer,
  peselRecognizer,
  ipRecognizer,
  dateOfBirthRecognizer,
  addressRecognizer,
  streetRecognizer,
  postcodeRecognizer,
  // Before the phone recognizer: a labelled customer number read as a phone number too is the former.
  // Before the reference recognizer: "sort code 20-00-00, account number 55779911" is a bank's account.
  sortCodeAccountRecognizer,
  referenceRecognizer,
  idNumberRecognizer,
  // Identity documents with a form of their own: a British driving licence, a Dutch identity card.
  ukDrivingLicenceRecognizer,
  dutchDocumentNumberRecognizer,
  foreignDocumentNumberRecognizer,
  // After its label, the plate: an exact tie with another reading of the same characters goes to it.
  licencePlateRecognizer,
  phoneRecognizer,
  spelledEmailRecognizer,
  personRecognizer,
  // A surname-first display name on a mail header line ("From: Jansen, Pieter <…>").
  headerNameRecognizer,
  // "@jeroen.smit": a person's handle in a mention.
  mentionRecognizer,
  // "MULLER/ANNA MRS": a passenger's name as booking systems write it.
  passengerNameRecognizer,
];
