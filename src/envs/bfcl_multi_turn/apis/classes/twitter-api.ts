// TwitterAPI (BFCL's posting_api): tweets, retweets, comments, mentions and follows, ported call
// for call. post_tweet's `tags=[]` and `mentions=[]` defaults are single lists shared by every call
// of the episode, as Python's mutable default arguments are (mention() extends them in place).
import { ApiInstance, type ApiClass, type BfclEnv, dict, f, getOr, method } from '../api.js';
import { add, toInt } from '../../../../py/num.js';
import { needStr } from '../../../../py/text.js';
import {
  dictGet,
  getitem,
  listRemove,
  needDict,
  needList,
  PyDict,
  pyContains,
  pyEq,
  pyIter,
  pyLen,
  type PyValue,
  setitem,
  truthy,
} from '../../../../py/values.js';

const err = (message: string): PyDict => dict({ error: message });

export class TwitterAPI extends ApiInstance {
  username: PyValue = 'john';
  password: PyValue = 'john123';
  authenticated: PyValue = false;
  tweets: PyValue = new PyDict();
  comments: PyValue = new PyDict();
  retweets: PyValue = new PyDict();
  followingList: PyValue = ['alice', 'bob'];
  tweetCounter: PyValue = 0n;

  loadScenario(s: PyDict): void {
    this.username = getOr(s, 'username', () => 'john');
    this.password = getOr(s, 'password', () => 'john123');
    this.authenticated = getOr(s, 'authenticated', () => false);
    const tweets = getOr(s, 'tweets', () => new PyDict());
    const converted = new PyDict();
    for (const [k, v] of needDict(tweets, 'items').entries()) converted.set(toInt(k), v);
    this.tweets = converted;
    this.comments = getOr(s, 'comments', () => new PyDict());
    this.retweets = getOr(s, 'retweets', () => new PyDict());
    this.followingList = getOr(s, 'following_list', () => ['alice', 'bob']);
    this.tweetCounter = getOr(s, 'tweet_counter', () => 0n);
  }

  stateAttrs(): [string, PyValue][] {
    return [
      ['username', this.username],
      ['password', this.password],
      ['authenticated', this.authenticated],
      ['tweets', this.tweets],
      ['comments', this.comments],
      ['retweets', this.retweets],
      ['following_list', this.followingList],
      ['tweet_counter', this.tweetCounter],
    ];
  }

  authenticate(username: PyValue, password: PyValue): PyValue {
    if (pyEq(username, this.username) && pyEq(password, this.password)) {
      this.authenticated = true;
      return dict({ authentication_status: true });
    }
    return dict({ authentication_status: false });
  }

  loginStatus(): PyValue {
    return dict({ login_status: truthy(this.authenticated) });
  }

  postTweet(content: PyValue, tags: PyValue, mentions: PyValue): PyValue {
    if (!truthy(this.authenticated)) return err('User not authenticated. Please authenticate before posting.');
    const tweet = dict({ id: this.tweetCounter, username: this.username, content, tags, mentions });
    setitem(this.tweets, this.tweetCounter, tweet);
    this.tweetCounter = add(this.tweetCounter, 1n);
    return tweet;
  }

  retweet(tweetId: PyValue): PyValue {
    if (!truthy(this.authenticated)) return err('User not authenticated. Please authenticate before retweeting.');
    if (!pyContains(this.tweets, tweetId)) return err(`Tweet with ID ${f(tweetId)} not found.`);
    if (!pyContains(this.retweets, this.username)) setitem(this.retweets, this.username, []);
    const mine = getitem(this.retweets, this.username);
    if (pyContains(mine, tweetId)) return dict({ retweet_status: 'Already retweeted' });
    needList(mine, 'append').push(tweetId);
    return dict({ retweet_status: 'Successfully retweeted' });
  }

  comment(tweetId: PyValue, content: PyValue): PyValue {
    if (!truthy(this.authenticated)) return err('User not authenticated. Please authenticate before commenting.');
    if (!pyContains(this.tweets, tweetId)) return err(`Tweet with ID ${f(tweetId)} not found.`);
    if (!pyContains(this.comments, tweetId)) setitem(this.comments, tweetId, []);
    needList(getitem(this.comments, tweetId), 'append').push(dict({ username: this.username, content }));
    return dict({ comment_status: 'Comment added successfully' });
  }

  mention(tweetId: PyValue, usernames: PyValue): PyValue {
    if (!pyContains(this.tweets, tweetId)) return err(`Tweet with ID ${f(tweetId)} not found.`);
    const tweet = getitem(this.tweets, tweetId);
    const list = needList(getitem(tweet, 'mentions'), 'extend');
    const items = pyIter(usernames);
    this.env.spend(items.length);
    list.push(...items);
    return dict({ mention_status: 'Users mentioned successfully' });
  }

  followUser(name: PyValue): PyValue {
    if (!truthy(this.authenticated)) return err('User not authenticated. Please authenticate before following.');
    if (pyContains(this.followingList, name)) return dict({ follow_status: false });
    needList(this.followingList, 'append').push(name);
    return dict({ follow_status: true });
  }

  listAllFollowing(): PyValue {
    if (!truthy(this.authenticated)) return err('User not authenticated. Please authenticate before listing following.');
    return dict({ following_list: this.followingList });
  }

  unfollowUser(name: PyValue): PyValue {
    if (!truthy(this.authenticated)) return err('User not authenticated. Please authenticate before unfollowing.');
    if (!pyContains(this.followingList, name)) return dict({ unfollow_status: false });
    listRemove(this.followingList, name);
    return dict({ unfollow_status: true });
  }

  getTweet(tweetId: PyValue): PyValue {
    if (!pyContains(this.tweets, tweetId)) return err(`Tweet with ID ${f(tweetId)} not found.`);
    return getitem(this.tweets, tweetId);
  }

  private allTweets(): PyValue[] {
    const all = needDict(this.tweets, 'values').values();
    this.env.spend(all.length);
    return all;
  }

  getUserTweets(username: PyValue): PyValue {
    return this.allTweets().filter((t) => pyEq(getitem(t, 'username'), username));
  }

  searchTweets(keyword: PyValue): PyValue {
    const k = needStr(keyword, 'lower').toLowerCase();
    return this.allTweets().filter((t) => {
      if (needStr(getitem(t, 'content'), 'lower').toLowerCase().includes(k)) return true;
      return pyIter(getitem(t, 'tags')).some((tag) => needStr(tag, 'lower').toLowerCase() === k);
    });
  }

  getTweetComments(tweetId: PyValue): PyValue {
    if (!pyContains(this.tweets, tweetId)) return err(`Tweet with ID ${f(tweetId)} not found.`);
    return dictGet(this.comments, tweetId, []);
  }

  getUserStats(username: PyValue): PyValue {
    const tweetCount = BigInt(this.getUserTweetsCount(username));
    const followingCount = pyEq(username, this.username) ? pyLen(this.followingList) : 0n;
    const retweetCount = pyLen(dictGet(this.retweets, username, []));
    return dict({ tweet_count: tweetCount, following_count: followingCount, retweet_count: retweetCount });
  }

  private getUserTweetsCount(username: PyValue): number {
    return this.allTweets().filter((t) => pyEq(getitem(t, 'username'), username)).length;
  }
}

type X = TwitterAPI;
const sharedList = (key: string) => (env: BfclEnv) => env.shared<PyValue[]>(`posting_api.post_tweet.${key}`, () => []);
export const TwitterAPIClass: ApiClass<X> = {
  name: 'TwitterAPI',
  create: (env: BfclEnv) => new TwitterAPI(env),
  methods: {
    authenticate_twitter: method<X>(['username', 'password'], (s, [a, b]) => s.authenticate(a!, b!)),
    comment: method<X>(['tweet_id', 'comment_content'], (s, [a, b]) => s.comment(a!, b!)),
    follow_user: method<X>(['username_to_follow'], (s, [a]) => s.followUser(a!)),
    get_tweet: method<X>(['tweet_id'], (s, [a]) => s.getTweet(a!)),
    get_tweet_comments: method<X>(['tweet_id'], (s, [a]) => s.getTweetComments(a!)),
    get_user_stats: method<X>(['username'], (s, [a]) => s.getUserStats(a!)),
    get_user_tweets: method<X>(['username'], (s, [a]) => s.getUserTweets(a!)),
    list_all_following: method<X>([], (s) => s.listAllFollowing()),
    mention: method<X>(['tweet_id', 'mentioned_usernames'], (s, [a, b]) => s.mention(a!, b!)),
    post_tweet: method<X>(['content', ['tags', sharedList('tags')], ['mentions', sharedList('mentions')]], (s, [a, b, c]) => s.postTweet(a!, b!, c!)),
    posting_get_login_status: method<X>([], (s) => s.loginStatus()),
    retweet: method<X>(['tweet_id'], (s, [a]) => s.retweet(a!)),
    search_tweets: method<X>(['keyword'], (s, [a]) => s.searchTweets(a!)),
    unfollow_user: method<X>(['username_to_unfollow'], (s, [a]) => s.unfollowUser(a!)),
  },
};
