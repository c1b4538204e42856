// What follows a house number and still belongs to the address: the unit, staircase, door or floor
// that tells one flat from the others in the building. Without it, "Kerkstraat 12 bus 3" was masked
// as "[ADDRESS_1] bus 3" and, worse, the postcode and town after such a tail were not read as part
// of the address at all ("Hauptstraße 5/3/12, 1010 Wien" left "1010 Wien").
//   BE  Kerkstraat 12 bus 3, Rue Haute 5 bte 2, boîte 4
//   AT  Hauptstraße 5/3/12 (house/staircase/door), Hauptstraße 5 Top 7, Stiege 2, Tür 4
//   DE  Hauptstraße 5, 3. OG; Hauptstraße 5, 2. OG links; Hauptstraße 5, EG
//   NL  Kerkstraat 12-II, 12-hs, 12 hs, 12 huis, 12 boven, 12 III
//   FR  12 rue …, 3e étage (after the street, not here)
// Every alternative starts with a fixed character or word and has bounded repetition: linear.
export const HOUSE_TAIL_SRC =
  '(?:(?:/\\d{1,4}){1,2}' +
  '|-(?:III|II|IV|I|hs|HS|bg|[A-Z]{1,2})' +
  '|[ \\u00a0](?:hs|huis|boven|bg|III|II|IV)' +
  '|,?[ \\u00a0](?:bus|Bus|bte\\.?|boîte)[ \\u00a0]?\\d{1,4}[A-Za-z]?' +
  '|,?[ \\u00a0]?/?[ \\u00a0]?(?:Top|Tür|Stiege|Stg\\.)[ \\u00a0]?\\d{1,4}' +
  // The side of the landing after the floor: "2. OG links", "3. Stock rechts", "EG Mitte".
  '|,[ \\u00a0]?(?:\\d{1,2}\\.[ \\u00a0]?(?:OG|Obergeschoss|Stock|Etage|DG|UG)|EG|DG|Erdgeschoss|Dachgeschoss)(?:[ \\u00a0](?:links|rechts|Mitte|li\\.|re\\.))?' +
  // Spanish floor and door ("C/ Mayor 5, 3º B", "2º izq."), Italian "int. 4", "scala B", Polish "m. 12", "lok. 3".
  '|,?[ \\u00a0]\\d{1,2}[º°ª](?:[ \\u00a0]?(?:[A-Z]|\\d{1,2}[ºª]|izq(?:da)?\\.?|dcha\\.?|izquierda|derecha))?' +
  '|,?[ \\u00a0](?:int\\.|interno|scala|m\\.|lok\\.|lokal)[ \\u00a0]?(?:\\d{1,4}[A-Z]?|[A-Z]))' +
  '(?![\\p{L}\\p{N}])';

const HOUSE_TAIL_Y = new RegExp(HOUSE_TAIL_SRC, 'uy');

/** The end of the unit, door or floor right after a house number that ends at `end` (at most two of them), or `end`. */
export function houseTailEnd(text: string, end: number): number {
  for (let k = 0; k < 2; k++) {
    HOUSE_TAIL_Y.lastIndex = end;
    if (!HOUSE_TAIL_Y.test(text)) break;
    end = HOUSE_TAIL_Y.lastIndex;
  }
  return end;
}
