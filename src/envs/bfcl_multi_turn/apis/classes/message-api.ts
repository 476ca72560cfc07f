// MessageAPI: BFCL's workspace messaging (users, login, send, delete, search, stats), ported call
// for call with its seeded message ids (Python's random.Random with the scenario's seed, redrawn
// until unused).
import { ApiInstance, type ApiClass, type BfclEnv, dict, f, getOr, method } from '../api.js';
import { PyException } from '../../../../py/errors.js';
import { add } from '../../../../py/num.js';
import { PyRandom } from '../../../../py/random.js';
import { needStr, zfill } from '../../../../py/text.js';
import { listRemove, needDict, needList, PyDict, pyContains, pyEq, pyIter, PySet, type PyValue, truthy, typeName } from '../../../../py/values.js';

function firstItem(message: PyValue): [PyValue, PyValue] {
  const d = needDict(message, 'items');
  const first = d.entries()[0];
  if (!first) throw new PyException('IndexError', 'list index out of range');
  return first;
}

const err = (message: string): PyDict => dict({ error: message });

export class MessageAPI extends ApiInstance {
  generatedIds: PyValue = new PySet();
  userCount: PyValue = 4n;
  userMap: PyValue = new PyDict();
  inbox: PyValue = [];
  messageCount: PyValue = 3n;
  currentUser: PyValue = null;
  private random!: PyRandom;

  loadScenario(s: PyDict): void {
    this.random = new PyRandom(getOr(s, 'random_seed', () => 200191n));
    this.generatedIds = getOr(s, 'generated_ids', () => new PySet());
    this.userCount = getOr(s, 'user_count', () => 4n);
    this.userMap = getOr(s, 'user_map', () => dict({ Alice: 'USR001', Bob: 'USR002', Catherine: 'USR003', Daniel: 'USR004' }));
    this.inbox = getOr(s, 'inbox', () => [
      dict({ USR002: 'My name is Alice. I want to connect.' }),
      dict({ USR003: 'Could you upload the file?' }),
      dict({ USR004: 'Could you upload the file?' }),
    ]);
    this.messageCount = getOr(s, 'message_count', () => 3n);
    this.currentUser = getOr(s, 'current_user', () => null);
  }

  stateAttrs(): [string, PyValue][] {
    return [
      ['generated_ids', this.generatedIds],
      ['user_count', this.userCount],
      ['user_map', this.userMap],
      ['inbox', this.inbox],
      ['message_count', this.messageCount],
      ['current_user', this.currentUser],
    ];
  }

  private generateId(): PyValue {
    let id = this.random.randint(10000n, 99999n);
    while (pyContains(this.generatedIds, id)) {
      this.env.spend();
      id = this.random.randint(10000n, 99999n);
    }
    if (!(this.generatedIds instanceof PySet)) throw new PyException('AttributeError', `'${typeName(this.generatedIds)}' object has no attribute 'add'`);
    this.generatedIds.add(id);
    return dict({ new_id: id });
  }

  private userIds(): PyValue[] {
    return needDict(this.userMap, 'values').values();
  }

  listUsers(): PyValue {
    return dict({ user_list: needDict(this.userMap, 'keys').keys() });
  }

  getUserId(user: PyValue): PyValue {
    if (!pyContains(this.userMap, user)) return err(`User '${f(user)}' not found in the workspace.`);
    return dict({ user_id: needDict(this.userMap, 'get').get(user) ?? null });
  }

  messageLogin(userId: PyValue): PyValue {
    if (!pyContains(this.userIds(), userId)) return dict({ login_status: false, message: `User ID '${f(userId)}' not found.` });
    this.currentUser = userId;
    return dict({ login_status: true, message: `User '${f(userId)}' logged in successfully.` });
  }

  messageGetLoginStatus(): PyValue {
    return dict({ login_status: truthy(this.currentUser) });
  }

  sendMessage(receiverId: PyValue, message: PyValue): PyValue {
    if (!truthy(this.currentUser)) return err('No user is currently logged in.');
    if (!pyContains(this.userIds(), receiverId)) return err(`Receiver ID '${f(receiverId)}' not found.`);
    const messageId = this.generateId();
    needList(this.inbox, 'append').push(PyDict.of([[receiverId, message]]));
    this.messageCount = add(this.messageCount, 1n);
    return dict({ sent_status: true, message_id: messageId, message: `Message sent to '${f(receiverId)}' successfully.` });
  }

  deleteMessage(receiverId: PyValue): PyValue {
    if (!truthy(this.currentUser)) return err('No user is currently logged in.');
    const inbox = [...pyIter(this.inbox)].reverse();
    for (const message of inbox) {
      this.env.spend();
      const [receiver] = firstItem(message);
      if (pyEq(receiver, receiverId)) {
        listRemove(this.inbox, message);
        return dict({ deleted_status: true, receiver_id: receiver, message: `Receiver ${f(receiverId)}'s latest message deleted successfully.` });
      }
    }
    return err(`Receiver ID ${f(receiverId)} not found.`);
  }

  viewMessagesSent(): PyValue {
    if (!truthy(this.currentUser)) return err('No user is currently logged in.');
    const sent = new PyDict();
    for (const message of pyIter(this.inbox)) {
      this.env.spend();
      const [receiver, content] = firstItem(message);
      const list = sent.get(receiver);
      if (list === undefined) sent.set(receiver, [content]);
      else (list as PyValue[]).push(content);
    }
    return dict({ messages: sent });
  }

  addContact(userName: PyValue): PyValue {
    if (pyContains(this.userMap, userName)) return err(`User name '${f(userName)}' already exists.`);
    this.userCount = add(this.userCount, 1n);
    const userId = `USR${zfill(f(this.userCount), 3)}`;
    if (pyContains(this.userIds(), userId)) return err(`User ID '${userId}' already exists.`);
    needDict(this.userMap, '__setitem__').set(userName, userId);
    return dict({ added_status: true, user_id: userId, message: `Contact '${f(userName)}' added successfully.` });
  }

  searchMessages(keyword: PyValue): PyValue {
    if (!truthy(this.currentUser)) return err('No user is currently logged in.');
    const k = needStr(keyword, 'lower').toLowerCase();
    const results: PyValue[] = [];
    for (const message of pyIter(this.inbox)) {
      this.env.spend();
      const [receiver, content] = firstItem(message);
      if (needStr(content, 'lower').toLowerCase().includes(k)) results.push(dict({ receiver_id: receiver, message: content }));
    }
    return dict({ results });
  }

  getMessageStats(): PyValue {
    if (!truthy(this.currentUser)) return err('No user is currently logged in.');
    let received = 0n;
    const contacts = new PySet();
    for (const message of pyIter(this.inbox)) {
      const [receiver] = firstItem(message);
      received++;
      contacts.add(receiver);
    }
    return dict({ stats: dict({ received_count: received, total_contacts: BigInt(contacts.size) }) });
  }
}

type M = MessageAPI;
export const MessageAPIClass: ApiClass<M> = {
  name: 'MessageAPI',
  create: (env: BfclEnv) => new MessageAPI(env),
  methods: {
    add_contact: method<M>(['user_name'], (s, [a]) => s.addContact(a!)),
    delete_message: method<M>(['receiver_id'], (s, [a]) => s.deleteMessage(a!)),
    get_message_stats: method<M>([], (s) => s.getMessageStats()),
    get_user_id: method<M>(['user'], (s, [a]) => s.getUserId(a!)),
    list_users: method<M>([], (s) => s.listUsers()),
    message_get_login_status: method<M>([], (s) => s.messageGetLoginStatus()),
    message_login: method<M>(['user_id'], (s, [a]) => s.messageLogin(a!)),
    search_messages: method<M>(['keyword'], (s, [a]) => s.searchMessages(a!)),
    send_message: method<M>(['receiver_id', 'message'], (s, [a, b]) => s.sendMessage(a!, b!)),
    view_messages_sent: method<M>([], (s) => s.viewMessagesSent()),
  },
};
