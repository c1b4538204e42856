// Runs the recognizers over the labelled set (test/fixtures/firewall) and holds them to
// precision ≥ 0.95 and recall ≥ 0.90, overall and per entity type. If a type falls short, improve
// the recognizer; do not weaken the set.
import { expect } from 'chai';
import { ENTITY_TYPES } from '../../src/firewall/types.js';
import { evaluateAll, formatMisses, formatReport, precision, recall, type Report } from './eval-lib.js';

const MIN_PRECISION = 0.95;
const MIN_RECALL = 0.9;

describe('firewall evaluation', () => {
  let report: Report;

  before(() => {
    report = evaluateAll();
    console.log(`\n${formatReport(report)}\n`);
    if (report.misses.length > 0) console.log(`misses:\n${formatMisses(report)}\n`);
  });

  it(`overall precision ≥ ${MIN_PRECISION} and recall ≥ ${MIN_RECALL}`, () => {
    expect(precision(report.overall)).to.be.at.least(MIN_PRECISION);
    expect(recall(report.overall)).to.be.at.least(MIN_RECALL);
  });

  for (const type of ENTITY_TYPES) {
    it(`${type}: precision ≥ ${MIN_PRECISION} and recall ≥ ${MIN_RECALL}`, () => {
      const c = report.perType[type];
      expect(c.tp + c.fn, `${type} has gold entities`).to.be.greaterThan(0);
      expect(precision(c), `${type} precision`).to.be.at.least(MIN_PRECISION);
      expect(recall(c), `${type} recall`).to.be.at.least(MIN_RECALL);
    });
  }

  it('detects the language of at least 95% of snippets and messages', () => {
    expect(report.languageCorrect / report.languageTotal).to.be.at.least(0.95);
  });
});
