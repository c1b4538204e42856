import { expect } from 'chai';
import { createFirewall } from '../../src/firewall/index.js';
import { expectMasksAndRestores, expectUnchanged } from './qaSamples.js';

// QA 2026-11-27 on a running instance, each text sent as a user message: first names typed in lower
// case after a self-introduction or a sign-off went out in clear (their capitalised forms were
// masked), and places were masked as people ("San [PERSON_1]", "[PERSON_1] ligt in het centrum").
// The samples as QA sent them, with the ordinary text beside them that must stay as written.
describe('firewall QA: casual lower-case names, saints’ places and "De" places', () => {

  describe('a first name in lower case after a self-introduction or a sign-off', () => {
    it('masks the samples QA sent, and restores them as written, in lower case', () => {
      expectMasksAndRestores("hi, i'm emma, my number is 0612345678", "hi, i'm [PERSON_1], my number is [PHONE_1]");
      expectMasksAndRestores('hoi! ik ben sanne en ik woon in utrecht', 'hoi! ik ben [PERSON_1] en ik woon in utrecht');
      expectMasksAndRestores('groetjes, sanne', 'groetjes, [PERSON_1]');
      expectMasksAndRestores("hey, it's mike here", "hey, it's [PERSON_1] here");
    });

    it('gives a reply the name with its capital once the text wrote it so (QA: "Sanne komt morgen" came back as "sanne komt morgen")', () => {
      const fw = createFirewall({ language: 'auto' });
      expect(fw.mask('Ik ben sanne. Sanne komt morgen.')).to.equal('Ik ben [PERSON_1]. [PERSON_1] komt morgen.');
      expect(fw.restore('Hoi [PERSON_1], tot morgen!')).to.equal('Hoi Sanne, tot morgen!');
    });

    it('masks them as their capitalised forms already were', () => {
      expectMasksAndRestores("Hi, I'm Emma", "Hi, I'm [PERSON_1]");
      expectMasksAndRestores('ik ben Sanne', 'ik ben [PERSON_1]');
      expectMasksAndRestores("Hi, I'm emma", "Hi, I'm [PERSON_1]");
    });

    it('masks after each language’s introductions and chat sign-offs', () => {
      expectMasksAndRestores('i am noah and i need help with my tax return', 'i am [PERSON_1] and i need help with my tax return');
      expectMasksAndRestores('this is sanne from the front desk', 'this is [PERSON_1] from the front desk');
      expectMasksAndRestores('mijn naam is sanne', 'mijn naam is [PERSON_1]');
      expectMasksAndRestores('ik heet daan', 'ik heet [PERSON_1]');
      expectMasksAndRestores('ich bin lukas, wer bist du?', 'ich bin [PERSON_1], wer bist du?');
      expectMasksAndRestores('ich heiße lukas', 'ich heiße [PERSON_1]');
      expectMasksAndRestores('mein name ist lukas', 'mein name ist [PERSON_1]');
      expectMasksAndRestores('je suis camille', 'je suis [PERSON_1]');
      expectMasksAndRestores("je m'appelle camille", "je m'appelle [PERSON_1]");
      expectMasksAndRestores("moi c'est camille", "moi c'est [PERSON_1]");
      expectMasksAndRestores('groeten, daan', 'groeten, [PERSON_1]');
      expectMasksAndRestores('cheers, emma', 'cheers, [PERSON_1]');
      expectMasksAndRestores('thanks, anna', 'thanks, [PERSON_1]');
      expectMasksAndRestores('gr. sanne', 'gr. [PERSON_1]');
      expectMasksAndRestores('lg anna', 'lg [PERSON_1]');
      expectMasksAndRestores('bisous camille', 'bisous [PERSON_1]');
      expectMasksAndRestores('groetjes,\nsanne', 'groetjes,\n[PERSON_1]');
      expectMasksAndRestores("i'm anne-sophie", "i'm [PERSON_1]");
    });

    it('leaves how or what one is, and whom one thanks, when it is no name', () => {
      expectUnchanged([
        "i'm sure",
        "i'm mark-ing the papers tonight",
        'ik ben moe',
        'ik ben bang',
        'ich bin müde',
        'je suis content',
        'thanks, team',
        'cheers, mate',
        "i'm will-ing to help",
        "i'm willing to help",
        "i'm will",
        "it's may here",
        "it's fine",
        'this is urgent',
        'thanks again',
        'thanks all',
        'i am writing to ask',
        'ik ben er',
        'ik ben benieuwd',
        'ich bin da',
        'je suis là',
        'bises à tous',
        'lg aus berlin',
      ]);
    });

    it('leaves a word of the cue’s language that is also a first name ("je suis ravi", "ik ben oma")', () => {
      expectUnchanged(['je suis ravi', 'je suis jolie', 'ik ben oma', 'ich bin oma', 'ich bin rein', "i'm alone", 'thanks, bud']);
      // In another language the same word is the name.
      expectMasksAndRestores("i'm ravi", "i'm [PERSON_1]");
    });

    it('leaves "ik ben mark": a first name that is also a word is not enough after a self-introduction, as "Ik ben Mark" is not', () => {
      expectUnchanged(['ik ben mark', 'Ik ben Mark', "i'm jordan"]);
    });
  });

  describe('a first name after a saint’s word is a place’s', () => {
    it('leaves the towns QA sent, and the other saints’ words of the four languages', () => {
      expectUnchanged([
        "I'm flying to San Francisco, then San Diego and Santa Monica",
        'Next year: San Juan, San Marco and San Sebastián.',
        'We visited San Marco square.',
        'Ons vakantiehuis staat op Sint Maarten.',
        'Van Sint Jan naar Sint Nicolaas.',
        'Wir fahren nach Sankt Peter-Ording, dann Sankt Anna.',
        'São Paulo and Santo Domingo',
        'St. Peter’s church and Ste. Anne',
        'On est allés à Saint Denis.',
        'Santa Claus is coming to town.',
      ]);
    });

    it('still masks a person beside them, and one a title names so', () => {
      expectMasksAndRestores('Anna Jansen flew to San Jose.', '[PERSON_1] flew to San Jose.');
      expectMasksAndRestores('Mr. San Juan called.', 'Mr. [PERSON_1] called.');
      expectMasksAndRestores('Pieter woont in Sint Maarten.', '[PERSON_1] woont in Sint Maarten.');
    });
  });

  describe('"De" and a Dutch noun is the article and a place, not a surname', () => {
    it('leaves the places QA sent, and others the lists hold as "van" surnames or a verb made a person', () => {
      expectUnchanged([
        'De Dam ligt in het centrum',
        'Wat is de geschiedenis van De Dam? En van De Kuip in Rotterdam?',
        'Feyenoord speelt in De Kuip.',
        'Ik stond op de Dam met vrienden.',
        'Het paleis op de Dam is mooi.',
        'De Bijenkorf heeft uitverkoop.',
        'De Efteling heeft een nieuwe attractie.',
        'De Meer was het oude stadion van Ajax.',
      ]);
    });

    it('still masks "De" surnames, and a place’s noun that a title, a cue, a first name or a verb of speech makes a name', () => {
      expectMasksAndRestores('De Vries belde gisteren.', '[PERSON_1] belde gisteren.');
      expectMasksAndRestores('De Jong komt morgen.', '[PERSON_1] komt morgen.');
      expectMasksAndRestores('Volgens de Boer is het zo.', 'Volgens [PERSON_1] is het zo.');
      expectMasksAndRestores('Het huis van De Haan is verkocht.', 'Het huis van [PERSON_1] is verkocht.');
      expectMasksAndRestores('meneer De Dam belde over de polis', 'meneer [PERSON_1] belde over de polis');
      expectMasksAndRestores('Naam: De Kuip', 'Naam: [PERSON_1]');
      expectMasksAndRestores('Jan de Dam komt morgen.', '[PERSON_1] komt morgen.');
      expectMasksAndRestores('De Dam belde gisteren.', '[PERSON_1] belde gisteren.');
      expectMasksAndRestores('Pieter de Vries en De Dam', '[PERSON_1] en De Dam');
    });
  });
});
