// TicketAPI: BFCL's support-ticket queue (login, create, get, close, resolve, edit, list), ported
// call for call.
import { ApiInstance, type ApiClass, type BfclEnv, dict, f, getOr, method } from '../api.js';
import { add } from '../../../../py/num.js';
import { needStr } from '../../../../py/text.js';
import { getitem, needDict, needList, type PyDict, pyCompare, pyEq, pyIter, type PyValue, setitem, truthy } from '../../../../py/values.js';

const err = (message: string): PyDict => dict({ error: message });
const VALID_FIELDS = ['title', 'description', 'status', 'priority'];

export class TicketAPI extends ApiInstance {
  ticketQueue: PyValue = [];
  ticketCounter: PyValue = 1n;
  currentUser: PyValue = null;

  loadScenario(s: PyDict): void {
    this.ticketQueue = getOr(s, 'ticket_queue', () => []);
    this.ticketCounter = getOr(s, 'ticket_counter', () => 1n);
    this.currentUser = getOr(s, 'current_user', () => null);
  }

  stateAttrs(): [string, PyValue][] {
    return [
      ['ticket_queue', this.ticketQueue],
      ['ticket_counter', this.ticketCounter],
      ['current_user', this.currentUser],
    ];
  }

  private find(ticketId: PyValue): PyValue {
    for (const t of pyIter(this.ticketQueue)) {
      this.env.spend();
      if (pyEq(getitem(t, 'id'), ticketId)) return t;
    }
    return null;
  }

  createTicket(title: PyValue, description: PyValue, priority: PyValue): PyValue {
    if (!truthy(this.currentUser)) return err('User not authenticated. Please log in to create a ticket.');
    if (pyCompare(priority, 1n, '<') || pyCompare(priority, 5n, '>')) return err('Invalid priority. Priority must be between 1 and 5.');
    const ticket = dict({ id: this.ticketCounter, title, description, status: 'Open', priority, created_by: this.currentUser });
    needList(this.ticketQueue, 'append').push(ticket);
    this.ticketCounter = add(this.ticketCounter, 1n);
    return ticket;
  }

  getTicket(ticketId: PyValue): PyValue {
    const t = this.find(ticketId);
    if (!truthy(t)) return err(`Ticket with ID ${f(ticketId)} not found.`);
    return t;
  }

  closeTicket(ticketId: PyValue): PyValue {
    const t = this.find(ticketId);
    if (!truthy(t)) return err(`Ticket with ID ${f(ticketId)} not found.`);
    if (pyEq(getitem(t, 'status'), 'Closed')) return err(`Ticket with ID ${f(ticketId)} is already closed.`);
    setitem(t, 'status', 'Closed');
    return dict({ status: `Ticket ${f(ticketId)} has been closed successfully.` });
  }

  resolveTicket(ticketId: PyValue, resolution: PyValue): PyValue {
    const t = this.find(ticketId);
    if (!truthy(t)) return err(`Ticket with ID ${f(ticketId)} not found.`);
    if (pyEq(getitem(t, 'status'), 'Resolved')) return err(`Ticket with ID ${f(ticketId)} is already resolved.`);
    setitem(t, 'status', 'Resolved');
    setitem(t, 'resolution', resolution);
    return dict({ status: `Ticket ${f(ticketId)} has been resolved successfully.` });
  }

  editTicket(ticketId: PyValue, updates: PyValue): PyValue {
    const t = this.find(ticketId);
    if (!truthy(t)) return err(`Ticket with ID ${f(ticketId)} not found.`);
    const u = needDict(updates, 'keys');
    // set(updates.keys()) - valid_fields (Python's set order is hash order; arbiter keeps insertion order)
    const invalid = u.keys().filter((k) => !VALID_FIELDS.some((v) => pyEq(k, v)));
    if (invalid.length) return err(`Invalid fields for update: ${invalid.map((k) => needStr(k, 'join')).join(', ')}`);
    for (const [k, v] of u.entries()) if (v !== null) setitem(t, k, v);
    return dict({ status: `Ticket ${f(ticketId)} has been updated successfully.` });
  }

  ticketLogin(username: PyValue, password: PyValue): PyValue {
    if (truthy(username) && truthy(password)) {
      this.currentUser = username;
      return dict({ success: true });
    }
    return dict({ success: false });
  }

  ticketGetLoginStatus(): PyValue {
    return dict({ login_status: truthy(this.currentUser) });
  }

  logout(): PyValue {
    if (truthy(this.currentUser)) {
      this.currentUser = null;
      return dict({ success: true });
    }
    return dict({ success: false });
  }

  getUserTickets(status: PyValue): PyValue {
    if (!truthy(this.currentUser)) return [dict({ error: 'User not authenticated. Please log in to view tickets.' })];
    let mine = pyIter(this.ticketQueue).filter((t) => pyEq(getitem(t, 'created_by'), this.currentUser));
    if (truthy(status)) {
      const s = needStr(status, 'lower').toLowerCase();
      mine = mine.filter((t) => needStr(getitem(t, 'status'), 'lower').toLowerCase() === s);
    }
    return mine;
  }
}

type K = TicketAPI;
export const TicketAPIClass: ApiClass<K> = {
  name: 'TicketAPI',
  create: (env: BfclEnv) => new TicketAPI(env),
  methods: {
    close_ticket: method<K>(['ticket_id'], (s, [a]) => s.closeTicket(a!)),
    create_ticket: method<K>(['title', ['description', () => ''], ['priority', () => 1n]], (s, [a, b, c]) => s.createTicket(a!, b!, c!)),
    edit_ticket: method<K>(['ticket_id', 'updates'], (s, [a, b]) => s.editTicket(a!, b!)),
    get_ticket: method<K>(['ticket_id'], (s, [a]) => s.getTicket(a!)),
    get_user_tickets: method<K>([['status', () => null]], (s, [a]) => s.getUserTickets(a!)),
    logout: method<K>([], (s) => s.logout()),
    resolve_ticket: method<K>(['ticket_id', 'resolution'], (s, [a, b]) => s.resolveTicket(a!, b!)),
    ticket_get_login_status: method<K>([], (s) => s.ticketGetLoginStatus()),
    ticket_login: method<K>(['username', 'password'], (s, [a, b]) => s.ticketLogin(a!, b!)),
  },
};
