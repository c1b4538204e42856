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

  describe('name keys read side by side, and Portuguese keys', () => {
    it('masks "first" and "last" beside each other in an object or a query', () => {
      expectMasksAndRestores('{"customer":{"first":"Eva","last":"Dekker"},"iban":"NL20INGB0001234567"}', '{"customer":{"first":"[PERSON_1]","last":"[PERSON_2]"},"iban":"[IBAN_1]"}');
      expectMasksAndRestores('https://crm.acme.com/contacts/view?first=Lieke&last=Mulder&phone=0612345678', 'https://crm.acme.com/contacts/view?first=[PERSON_1]&last=[PERSON_2]&phone=[PHONE_1]');
      expectMasksAndRestores('{"First": "Eva", "Last": "Dekker"}', '{"First": "[PERSON_1]", "Last": "[PERSON_2]"}');
    });

    it('keeps "first" and "last" of a page, a range or alone', () => {
      expectUnchanged([
        'query { users(first: 10, last: 5) }',
        'https://api.example.com/items?first=10&last=20',
        '{"first": "2024-01-01", "last": "2024-12-31"}',
        '{"first": "Eva"}',
        'https://example.com/list?first=Next&last=Prev',
      ]);
    });

    it('reads Portuguese keys as the Spanish and Italian ones', () => {
      expectMasksAndRestores(
        '{"nome": "Mariana", "sobrenome": "Ferreira", "telemovel": "912345678", "morada": "Rua Augusta 100, Lisboa"}',
        '{"nome": "[PERSON_1]", "sobrenome": "[PERSON_2]", "telemovel": "[PHONE_1]", "morada": "[ADDRESS_1]"}',
      );
      expectMasksAndRestores(
        '{"nome": "Mariana", "apelido": "Ferreira", "telefone": "912345678", "endereço": "Rua Augusta 100", "data de nascimento": "12/03/1985", "código postal": "1100-048", "localidade": "Lisboa"}',
        '{"nome": "[PERSON_1]", "apelido": "[PERSON_2]", "telefone": "[PHONE_1]", "endereço": "[ADDRESS_1]", "data de nascimento": "[DATE_OF_BIRTH_1]", "código postal": "[ADDRESS_2]", "localidade": "[ADDRESS_3]"}',
      );
      expectMasksAndRestores('nome,sobrenome,telemovel,data_nascimento\nMariana,Ferreira,912345678,12/03/1985', 'nome,sobrenome,telemovel,data_nascimento\n[PERSON_1],[PERSON_2],[PHONE_1],[DATE_OF_BIRTH_1]');
    });

    it('keeps Portuguese data that names no one', () => {
      expectUnchanged(['{"morada": "desconhecida"}', '{"telefone": "n/a"}']);
    });
  });

  describe('a town among its own facts or in an aggregate is no address', () => {
    it('keeps a town under a city key beside its population, or counted by a query', () => {
      expectUnchanged([
        '{"city": "Amsterdam", "population": 921402}',
        'WHERE city = \'Rotterdam\' GROUP BY city',
        'SELECT count(*) FROM customers WHERE city = \'Rotterdam\'',
        '{"cidade": "Lisboa", "populacao": 545000}',
        'city: Amsterdam\npopulation: 921402\ncountry: NL',
        '{"name": "Utrecht", "lat": 52.09, "lon": 5.12}',
      ]);
    });

    it("still masks a town in a person's record or beside a person's value", () => {
      expectMasksAndRestores('{"name": "Jan de Vries", "city": "Amsterdam", "lat": 52.3, "lon": 4.9}', '{"name": "[PERSON_1]", "city": "[ADDRESS_1]", "lat": 52.3, "lon": 4.9}');
      expectMasksAndRestores('{"email": "jan@example.nl", "city": "Amsterdam", "population": 5}', '{"email": "[EMAIL_1]", "city": "[ADDRESS_1]", "population": 5}');
      expectMasksAndRestores("SELECT * FROM klanten WHERE achternaam = 'Smit' AND stad = 'Rotterdam'", "SELECT * FROM klanten WHERE achternaam = '[PERSON_1]' AND stad = '[ADDRESS_1]'");
      expectMasksAndRestores('name: Jan de Vries\ncity: Amsterdam', 'name: [PERSON_1]\ncity: [ADDRESS_1]');
    });
  });

  describe('firstname.lastname handles and home directories', () => {
    it('masks a dotted handle whole when it spells a first name and a surname', () => {
      expectMasksAndRestores('ping kevin.de.boer about it', 'ping [PERSON_1] about it');
      expectMasksAndRestores('cc: lisa.van.dam, tom.peeters', 'cc: [PERSON_1], [PERSON_2]');
      expectMasksAndRestores('"username=bas.vermeer"', '"username=[PERSON_1]"');
      expectMasksAndRestores('"GET /login?username=bas.vermeer HTTP/1.1" 200', '"GET /login?username=[PERSON_1] HTTP/1.1" 200');
      expectMasksAndRestores('@wouter.kramer kun je kijken?', '@[PERSON_1] kun je kijken?');
    });

    it("masks a home directory's user written as a first name and a surname", () => {
      expectMasksAndRestores('see C:\\Users\\Marieke.Jansen\\Desktop', 'see C:\\Users\\[PERSON_1]\\Desktop');
      expectMasksAndRestores('at Object.<anonymous> (/home/pieter.bakker/app/index.js:12:5)', 'at Object.<anonymous> (/home/[PERSON_1]/app/index.js:12:5)');
      expectMasksAndRestores('cd /Users/lisa_van_dam/code', 'cd /Users/[PERSON_1]/code');
    });

    it('keeps dotted names of code, files and accounts', () => {
      expectUnchanged([
        "user.name = 'x'; self.config; os.path.join(a); console.log(x); package.json; lodash.merge(a, b)",
        'mark.price and ray.init() and max.length and grace.period',
        'pytest.mark.parametrize and np.array and df.groupby',
        '/home/ubuntu/app /home/runner/work /Users/admin/x /Users/Shared/y',
        'ls /home/pieter/projects',
      ]);
      expectMasksAndRestores('mail jane.doe@example.com', 'mail [EMAIL_1]');
    });
  });

  describe('SQL inside a shell command', () => {
    it("reads a shell argument's SQL literals as the same SQL on its own line", () => {
      expectMasksAndRestores('mysql -u root -e "select * from klanten where achternaam=\'Smit\'"', 'mysql -u root -e "select * from klanten where achternaam=\'[PERSON_1]\'"');
      expectUnchanged(['psql -c "SELECT count(*) FROM orders WHERE status=\'open\'"', 'echo "a=\'b\'" "c"']);
    });
  });
});
