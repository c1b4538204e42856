import { expectMasksAndRestores, expectUnchanged } from './qaSamples.js';

// QA 2026-11-27 (third round): keys, handles and structure. The names of things under a generic
// "name" key (a CI step, a playbook's task, a report, an office) were masked as people; name keys
// the rules did not read (`first`/`last`, Portuguese keys), `firstname.lastname` handles and home
// directories went out in clear. Beside each, the near-misses that must stay as they are.
describe('firewall QA: keys, handles and structure of 2026-11-27 (c)', () => {
  describe('a generic "name" key names a thing unless its value is shaped as a person\'s', () => {
    it("keeps a CI step's, a playbook task's and a workflow's name", () => {
      expectUnchanged([
        '- name: Install dependencies\n  run: npm ci\n- name: Run tests\n  run: npm test',
        'jobs:\n  build:\n    steps:\n      - name: Install dependencies\n        run: npm ci\n      - name: Run tests\n        run: npm test',
        'name: Deploy to production',
        'name: Build and test',
        '- name: Ensure nginx is installed',
        '- hosts: web\n  tasks:\n    - name: Ensure nginx is installed\n      apt:\n        name: nginx\n        state: present\n    - name: Start Nginx Service\n      service:\n        name: nginx',
        '            - name: Copy Config Files\n              copy: src=a dest=b',
        'name: CI\non:\n  push:\njobs:\n  test:\n    steps:\n      - name: Setup Node\n        uses: actions/setup-node@v4\n      - name: Lint\n        run: npm run lint',
      ]);
    });

    it("keeps a report's, an office's and a place's name", () => {
      expectUnchanged([
        'Name: Quarterly Sales Report',
        'Naam: Kantoor Utrecht',
        'name: Victoria\ntype: cron job',
        '[{"name":"Florence","type":"city"},{"name":"Victoria","type":"state"}]',
      ]);
    });

    it("still masks a person's name under the same keys", () => {
      expectMasksAndRestores('customer:\n  name: Jan de Vries\n  email: jan@example.nl', 'customer:\n  name: [PERSON_1]\n  email: [EMAIL_1]');
      expectMasksAndRestores('name: Jan de Vries', 'name: [PERSON_1]');
      expectMasksAndRestores('{"name": "Eva Dekker"}', '{"name": "[PERSON_1]"}');
      expectMasksAndRestores('Name: John Smith', 'Name: [PERSON_1]');
      // A record of people has a type too; a full name beside a step's key is still a name.
      expectMasksAndRestores('Name: Lisa\nType: employee', 'Name: [PERSON_1]\nType: employee');
      expectMasksAndRestores('{"name": "Jan de Vries", "type": "customer"}', '{"name": "[PERSON_1]", "type": "customer"}');
      expectMasksAndRestores('name: Pieter Bakker\nrole: admin', 'name: [PERSON_1]\nrole: admin');
      expectMasksAndRestores('Naam: Jan (zie bijlage 2)', 'Naam: [PERSON_1] (zie bijlage 2)');
      expectMasksAndRestores('Name: Victoria Beckham', 'Name: [PERSON_1]');
    });
  });
});
